/**
 * What a NATS application document is called: `asyncapi.yaml`, or `<name>.asyncapi.yaml` /
 * `.yml`, as a file name or at the end of a path (either separator). The format claims these
 * files, and a bundle's lock lists its application documents by the same names.
 */
export const APPLICATION_DOCUMENT_NAME = /(^|[\\/])(asyncapi\.yaml|[^\\/]*\.asyncapi\.ya?ml)$/

export { isObject } from '../../runtime/shared/json-value.js'
