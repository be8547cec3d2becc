/**
 * What a NATS application document is called: `asyncapi.yaml` or `asyncapi.json`, or
 * `<name>.asyncapi.yaml` / `.yml` / `.json`, as a file name or at the end of a path (either
 * separator). The format claims these
 * files, and a bundle's lock lists its application documents by the same names.
 */
export const APPLICATION_DOCUMENT_NAME = /(^|[\\/])(asyncapi\.(?:yaml|json)|[^\\/]*\.asyncapi\.(?:ya?ml|json))$/

export { isObject } from '../../runtime/shared/json-value.js'
