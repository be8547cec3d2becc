import { escapeToken } from '../../runtime/shared/json-pointer.js'
import { parseFilter } from './address.js'
import { isObject } from './document.js'

/** The closed stream and consumer configurations of profile v0.2 ("Native configuration and authority"). */
const STREAM_FIELDS = ['name', 'subjects', 'retention', 'storage', 'num_replicas', 'max_age', 'max_msgs', 'max_bytes', 'discard', 'duplicate_window'] as const
const CONSUMER_FIELDS = [
  'durable_name',
  'filter_subject',
  'ack_policy',
  'deliver_policy',
  'ack_wait',
  'max_deliver',
  'max_ack_pending',
  'replay_policy',
] as const
const PUSH_FIELDS = new Set(['deliver_subject', 'deliver_group', 'flow_control', 'idle_heartbeat', 'headers_only'])

const ALLOWED: Record<string, readonly unknown[]> = {
  retention: ['limits', 'interest', 'workqueue'],
  storage: ['file', 'memory'],
  num_replicas: [1, 3, 5],
  discard: ['old', 'new'],
  ack_policy: ['explicit'],
  deliver_policy: ['all', 'new'],
  replay_policy: ['instant'],
}
const POSITIVE = new Set(['max_age', 'max_msgs', 'max_bytes', 'duplicate_window', 'ack_wait', 'max_deliver', 'max_ack_pending'])
const DURATIONS = new Set(['max_age', 'duplicate_window', 'ack_wait'])

export interface ConfigProblem {
  /** Relative pointer inside the configuration ('' for the object itself). */
  at: string
  message: string
}

/** NATS names of streams and durable consumers: printable ASCII without space, `.`, `*`, `>`, `/`, `\`. */
export function nameProblem(name: unknown, what: string): string | undefined {
  if (typeof name !== 'string' || name.length === 0 || name.length > 255) return `${what} must be a name of 1 to 255 characters`
  if (!/^[\x21-\x7e]+$/.test(name) || /[.*>/\\]/.test(name)) return `${what} ${JSON.stringify(name)} may not contain whitespace, ".", "*", ">", "/" or "\\"`
  return undefined
}

/**
 * `positive`: why the positive integer at a field is not usable, or undefined (read exactly from the
 * source past 2^53: exact-integers.ts); by default a safe positive integer.
 */
export function configProblems(
  kind: 'stream' | 'consumer',
  config: unknown,
  positive: (field: string, value: unknown) => string | undefined = (_, value) =>
    Number.isSafeInteger(value) && (value as number) > 0 ? undefined : 'must be a positive integer',
): ConfigProblem[] {
  if (!isObject(config)) return [{ at: '', message: `A ${kind} configuration is an object.` }]
  const fields: readonly string[] = kind === 'stream' ? STREAM_FIELDS : CONSUMER_FIELDS
  const problems: ConfigProblem[] = []
  for (const key of Object.keys(config)) {
    if (fields.includes(key)) continue
    problems.push({
      at: '/' + escapeToken(key),
      message: PUSH_FIELDS.has(key)
        ? `${key} configures a push consumer; profile v0.2 supports durable pull consumers only.`
        : `${key} is not part of the closed ${kind} configuration of profile v0.2 (unsupported).`,
    })
  }
  for (const key of fields) {
    if (!Object.hasOwn(config, key)) {
      problems.push({ at: '', message: `The ${kind} configuration needs ${key}.` })
      continue
    }
    const value = config[key]
    const at = '/' + key
    if (ALLOWED[key] && !ALLOWED[key].includes(value))
      problems.push({ at, message: `${key} must be one of ${ALLOWED[key].map((v) => JSON.stringify(v)).join(', ')}.` })
    const problem = POSITIVE.has(key) ? positive(key, value) : undefined
    if (problem) problems.push({ at, message: `${key} ${problem}${DURATIONS.has(key) ? ' (nanoseconds)' : ''}.` })
  }
  if (kind === 'stream' && Object.hasOwn(config, 'subjects')) {
    const subjects = config.subjects
    if (!Array.isArray(subjects) || subjects.length === 0) problems.push({ at: '/subjects', message: 'subjects must be a non-empty list of subjects.' })
    else
      subjects.forEach((s, i) => {
        const problem = subjectProblem(s)
        if (problem) problems.push({ at: `/subjects/${i}`, message: problem })
      })
  }
  if (kind === 'consumer' && Object.hasOwn(config, 'filter_subject')) {
    const problem = subjectProblem(config.filter_subject)
    if (problem) problems.push({ at: '/filter_subject', message: problem })
  }
  return problems
}

function subjectProblem(subject: unknown): string | undefined {
  if (typeof subject !== 'string') return 'A subject is a string.'
  const parsed = parseFilter(subject)
  if ('problem' in parsed) return `${parsed.problem}.`
  if (parsed.tokens.some((t) => typeof t !== 'string'))
    return `${JSON.stringify(subject)} has a placeholder; native subjects are literal tokens, "*" and a final ">".`
  return undefined
}
