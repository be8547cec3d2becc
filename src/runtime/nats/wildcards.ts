/**
 * NATS subjects with wildcards, as nats-server reads a stream's subjects and a consumer's filter:
 * tokens separated by `.`, `*` one token, a final `>` one or more tokens. Each question is answered
 * token by token: O(tokens). In the runtime, since provisioning reads them as the checker does (a
 * stream's subjects widened, a consumer's filter widened, lose nothing).
 */

/** Is every subject `inner` matches also matched by `outer`? (A consumer filter within a stream subject.) */
export function subjectWithin(inner: string, outer: string): boolean {
  const a = inner.split('.')
  const b = outer.split('.')
  for (let i = 0; i < a.length; i++) {
    const x = a[i]!
    const y = b[i]
    if (y === undefined) return false
    if (y === '>') return i === b.length - 1
    if (x === '>') return false
    if (y !== '*' && (x === '*' || x !== y)) return false
  }
  return a.length === b.length
}

/** Do two patterns match at least one subject in common? (Two streams whose subjects overlap.) */
export function subjectsOverlap(left: string, right: string): boolean {
  const a = left.split('.')
  const b = right.split('.')
  for (let i = 0; i < Math.max(a.length, b.length); i++) {
    const x = a[i]
    const y = b[i]
    if (x === '>' || y === '>') return x !== undefined && y !== undefined
    if (x === undefined || y === undefined) return false
    if (x !== '*' && y !== '*' && x !== y) return false
  }
  return true
}

/**
 * How a consumer's filter sits among its stream's subjects, as nats-server decides whether the filter
 * is "a valid subset of the interest subjects" (JetStream API error 10093): `valid` when it lies
 * within one of them or one of them lies within it, `partial` when it only overlaps some, `disjoint`
 * when it shares no subject with any. O(subjects x tokens).
 */
export function filterAgainstStream(filter: string, subjects: readonly string[]): 'valid' | 'partial' | 'disjoint' {
  if (subjects.some((subject) => subjectWithin(filter, subject) || subjectWithin(subject, filter))) return 'valid'
  return subjects.some((subject) => subjectsOverlap(filter, subject)) ? 'partial' : 'disjoint'
}
