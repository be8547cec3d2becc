/**
 * A Benzene contract document with one topic, `chain:go` (its client export `go`), whose request
 * and response are the schemas given, beside `schemas` as its components: the document tests of
 * schema shapes (chains, cycles) build around.
 */
export function oneTopicDocument(request: unknown, response: unknown, schemas: Readonly<Record<string, unknown>>): string {
  return JSON.stringify({
    openapi: '3.0.1',
    info: { title: 'chain', description: '', version: '' },
    messageEndpoint: '/benzene/invoke',
    transports: ['benzene'],
    requests: [{ topic: 'chain:go', request, response }],
    events: [],
    components: { schemas },
  })
}
