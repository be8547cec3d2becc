import { isObject } from '../../../runtime/benzene/document.js'
import { benzeneRule } from './rule.js'

/** Complexity (each rule here, worst case on any input under the size limits): constant per document (the endpoint is one string). */

/**
 * `messageEndpoint` is "the path of the service's Benzene-message-over-HTTP endpoint" (Benzene
 * Contract Document §1): a path on the service's own origin, never a place of the document's
 * choosing. Anything a URL parser could read as another host is refused: a scheme (`http:`), a
 * network path (`//host`), backslashes (`/\host`, which URL parsers treat as `/`), and ASCII
 * control characters or spaces (tabs and newlines are dropped by URL parsers: `/\t/host`). A query
 * or fragment is not a path either. Constant time per document.
 */
export function endpointProblem(endpoint: string): string | undefined {
  if (!endpoint.startsWith('/')) return 'must start with "/" (a path on the service\'s origin, not a URL)'
  if (endpoint.startsWith('//')) return 'must not start with "//" (that names another host)'
  if (endpoint.includes('\\')) return 'must not contain "\\" (URL parsers read it as "/")'
  if ([...endpoint].some((c) => c <= ' ' || c === '\u007f')) return 'must not contain spaces or control characters'
  if (/[?#]/.test(endpoint)) return 'must be a path alone, without a query or fragment'
  // The last word is the URL parser's: resolved against any origin, the path stays on it.
  if (new URL(endpoint, 'http://service.invalid').origin !== 'http://service.invalid') return "must stay on the service's origin"
  return undefined
}

export const endpointForm = benzeneRule({
  code: 'BENZENE_ENDPOINT_FORM',
  description: "`messageEndpoint` is not an absolute path on the service's origin (a URL, `//host`, backslashes, control characters, a query).",
  check({ doc }, report) {
    if (!isObject(doc) || typeof doc.messageEndpoint !== 'string') return
    const problem = endpointProblem(doc.messageEndpoint)
    if (problem)
      report(
        '/messageEndpoint',
        `\`messageEndpoint\` ${JSON.stringify(doc.messageEndpoint)} ${problem}; the document may only give a path, and clients send to the origin they are configured with.`,
      )
  },
})
