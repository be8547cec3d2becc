/**
 * The Benzene differ's rule catalogue (`docs/diff.md` and SARIF `rules` are generated from it).
 * Audiences: `client` (sends requests, receives responses and events) and `service` (receives
 * requests, sends responses and events), named by topic (`topic` or `topic@version`) where one is known.
 */
import { SCHEMA_DIFF_RULES } from '../../../core/diff/schema-diff.js'
import type { DiffLevel, DiffRule } from '../../../core/diff/types.js'

export const BENZENE_AUDIENCES = ['client', 'service'] as const

const CLIENT = ['client'] as const
/** An info finding breaks nobody, so it names no audience. */
const NO_ONE = [] as const
const LEVELS: readonly DiffLevel[] = ['breaking', 'warning', 'info']
const NONE_SAYS_WHY = (why: string) => ({ none: why })

export const BENZENE_RULES: readonly DiffRule[] = [
  {
    id: 'benzene-request-removed',
    levels: ['breaking'],
    audiences: CLIENT,
    summary: 'A request topic (with its version) is gone: clients that send it get no handler.',
    example: { old: '"requests": [{"topic": "payments:capture", ...}]', new: '"requests": []' },
    mirror: { rule: 'benzene-request-added' },
  },
  {
    id: 'benzene-request-added',
    levels: ['info'],
    audiences: NO_ONE,
    summary: 'A request topic is new: no existing client sends it.',
    example: { old: '"requests": []', new: '"requests": [{"topic": "payments:refund", ...}]' },
    mirror: { rule: 'benzene-request-removed' },
  },
  {
    id: 'benzene-request-version-changed',
    levels: ['breaking'],
    audiences: CLIENT,
    summary: "A request topic's only entry changed its handler version: clients that send the old version (or none) get no handler.",
    example: { old: '{"topic": "payments:capture", "version": "v1", ...}', new: '{"topic": "payments:capture", "version": "v2", ...}' },
    mirror: { none: 'A version is replaced, never only added or removed: an added or removed entry is reported by the added and removed rules.' },
  },
  {
    id: 'benzene-event-removed',
    levels: ['breaking'],
    audiences: CLIENT,
    summary: 'An event topic is gone: clients that wait for it never receive it again.',
    example: { old: '"events": [{"topic": "payment:captured", ...}]', new: '"events": []' },
    mirror: { rule: 'benzene-event-added' },
  },
  {
    id: 'benzene-event-added',
    levels: ['info'],
    audiences: NO_ONE,
    summary: 'An event topic is new: no existing client waits for it.',
    example: { old: '"events": []', new: '"events": [{"topic": "payment:refunded", ...}]' },
    mirror: { rule: 'benzene-event-removed' },
  },
  {
    id: 'benzene-event-version-changed',
    levels: ['breaking'],
    audiences: CLIENT,
    summary: "An event topic's only entry changed its version: clients that wait for the old version no longer receive it.",
    example: { old: '{"topic": "payment:captured", "version": "v1", ...}', new: '{"topic": "payment:captured", "version": "v2", ...}' },
    mirror: { none: 'A version is replaced, never only added or removed: an added or removed entry is reported by the added and removed rules.' },
  },
  {
    id: 'benzene-reserved-changed',
    levels: ['breaking', 'info'],
    audiences: CLIENT,
    summary: 'A request topic became reserved (regenerated default clients leave it out: breaking for its clients) or stopped being reserved (info).',
    example: { old: '{"topic": "payments:ping", ...}', new: '{"topic": "payments:ping", "reserved": true, ...}' },
    mirror: NONE_SAYS_WHY('Both directions are this one rule, at the level each has.'),
  },
  {
    id: 'benzene-http-mapping-removed',
    levels: ['breaking'],
    audiences: CLIENT,
    summary: "A topic's HTTP route (method and path) is gone: clients that call it over HTTP can no longer reach the topic.",
    example: { old: '"httpMappings": [{"method": "POST", "path": "/payments"}]', new: '"httpMappings": [{"method": "POST", "path": "/payment"}]' },
    mirror: { rule: 'benzene-http-mapping-added' },
  },
  {
    id: 'benzene-http-mapping-added',
    levels: ['info'],
    audiences: NO_ONE,
    summary: 'A topic has a new HTTP route: nobody calls it yet.',
    example: { old: '{"topic": "payments:capture", ...}', new: '"httpMappings": [{"method": "POST", "path": "/payments"}]' },
    mirror: { rule: 'benzene-http-mapping-removed' },
  },
  {
    id: 'benzene-message-endpoint-removed',
    levels: ['breaking'],
    audiences: CLIENT,
    summary: 'The Benzene-message-over-HTTP endpoint is gone: clients that send messages to it (they feature-detect it) can no longer send.',
    example: { old: '"messageEndpoint": "/benzene/invoke"', new: '(no messageEndpoint)' },
    mirror: { rule: 'benzene-message-endpoint-added' },
  },
  {
    id: 'benzene-message-endpoint-changed',
    levels: ['breaking'],
    audiences: CLIENT,
    summary: 'The Benzene-message-over-HTTP endpoint moved: clients configured with the old path can no longer send.',
    example: { old: '"messageEndpoint": "/benzene/invoke"', new: '"messageEndpoint": "/invoke"' },
    mirror: NONE_SAYS_WHY('A path replaced by another is its own mirror.'),
  },
  {
    id: 'benzene-message-endpoint-added',
    levels: ['info'],
    audiences: NO_ONE,
    summary: 'The service now has a Benzene-message-over-HTTP endpoint: nobody sends to it yet.',
    example: { old: '(no messageEndpoint)', new: '"messageEndpoint": "/benzene/invoke"' },
    mirror: { rule: 'benzene-message-endpoint-removed' },
  },
  {
    id: 'benzene-transport-removed',
    levels: ['breaking'],
    audiences: CLIENT,
    summary: 'The service no longer receives over a transport: clients whose outbound route uses it can no longer reach any topic.',
    example: { old: '"transports": ["sqs", "sns"]', new: '"transports": ["sns"]' },
    mirror: { rule: 'benzene-transport-added' },
  },
  {
    id: 'benzene-transport-added',
    levels: ['info'],
    audiences: NO_ONE,
    summary: 'The service receives over a new transport: nobody routes to it yet.',
    example: { old: '"transports": ["sns"]', new: '"transports": ["sns", "sqs"]' },
    mirror: { rule: 'benzene-transport-removed' },
  },
  {
    id: 'benzene-component-removed',
    levels: ['info'],
    audiences: NO_ONE,
    summary:
      'A component schema is gone; a payload that used it now names another schema (the checker refuses a dangling $ref), which the payload rules report.',
    example: { old: '"schemas": {"Money": {...}}', new: '"schemas": {}' },
    mirror: { rule: 'benzene-component-added' },
  },
  {
    id: 'benzene-component-added',
    levels: ['info'],
    audiences: NO_ONE,
    summary: 'A component schema is new; a payload that uses it is reported by the payload rules.',
    example: { old: '"schemas": {}', new: '"schemas": {"Money": {...}}' },
    mirror: { rule: 'benzene-component-removed' },
  },
  {
    id: 'benzene-info-changed',
    levels: ['info'],
    audiences: NO_ONE,
    summary: 'A member of `info` (title, version, description) changed: no message changes (the contract hashes may).',
    example: { old: '"info": {"title": "payments-api", "version": ""}', new: '"info": {"title": "payments-api", "version": "2.0"}' },
    mirror: NONE_SAYS_WHY('It breaks nobody either way.'),
  },
  {
    id: 'benzene-openapi-changed',
    levels: ['info'],
    audiences: NO_ONE,
    summary: 'The `openapi` heritage marker changed: consumers must not reject a document on it.',
    example: { old: '"openapi": "3.0.1"', new: '"openapi": "3.0.3"' },
    mirror: NONE_SAYS_WHY('It breaks nobody either way.'),
  },
  {
    id: 'benzene-example-changed',
    levels: ['info'],
    audiences: NO_ONE,
    summary: "An entry's `example` changed, appeared or went: decoration only (the contract hash strips it).",
    example: { old: '"example": {"amount": 42.42}', new: '"example": {"amount": 10}' },
    mirror: NONE_SAYS_WHY('It breaks nobody either way.'),
  },
  {
    id: 'benzene-unknown-member-changed',
    levels: ['info'],
    audiences: NO_ONE,
    summary: 'A member the specification does not define changed (consumers ignore it), at the top level, in an entry or in `components`.',
    example: { old: '"tags": ["payments"]', new: '"tags": ["billing"]' },
    mirror: NONE_SAYS_WHY('It breaks nobody either way.'),
  },
  {
    id: 'benzene-hash-changed',
    levels: ['warning', 'info'],
    audiences: CLIENT,
    summary:
      'Which contract hashes (whole-service, include-list, per topic) change, so a team knows which deployed clients will report drift (warning); an edit that changes none is info.',
    example: { old: '"info": {"title": "payments-api", ...}', new: '"info": {"title": "payments", ...}' },
    mirror: NONE_SAYS_WHY('A hash changes or does not: there is no direction.'),
  },
]

/**
 * The schema engine's rules as this differ reports them: a payload a client sends is received by
 * the service and the reverse, so each rule can name either audience; and each can also be info
 * (a change that hits neither party's direction, or a component schema no payload reaches).
 */
export const BENZENE_SCHEMA_RULES: readonly DiffRule[] = SCHEMA_DIFF_RULES.map((rule) => {
  const levels = LEVELS.filter((level) => level === 'info' || rule.levels.includes(level))
  return { ...rule, levels, audiences: levels.some((level) => level !== 'info') ? BENZENE_AUDIENCES : NO_ONE }
})

export const BENZENE_DIFF_RULES: readonly DiffRule[] = [...BENZENE_RULES, ...BENZENE_SCHEMA_RULES]
