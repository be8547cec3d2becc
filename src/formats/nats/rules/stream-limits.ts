import { exactInteger } from '../exact-integers.js'
import { subjectsOverlap, subjectWithin } from '../../../runtime/nats/wildcards.js'
import { natsRule } from './rule.js'
import { configs } from './native.js'

/** Complexity (each rule here, worst case on any input under the size limits): one pass over the streams, each limit compared once and each subject list walked once: O(streams + subjects). */

/**
 * nats-server refuses a stream whose deduplication window is longer than its maximum age
 * ("duplicates window can not be larger then max age"): the window cannot outlive the messages it
 * deduplicates. One comparison per stream.
 */
export const streamWindow = natsRule({
  code: 'NATS_STREAM_WINDOW',
  description: "A stream's duplicate_window is longer than its max_age, which nats-server 2.11 refuses.",
  check(ctx, report) {
    for (const [key, config, resolved] of configs(ctx, 'streams')) {
      // Compared exactly: both may be past 2^53 (a year is 3.2e16 ns).
      const window = exactInteger(resolved.file, `${resolved.pointer}/duplicate_window`, config.duplicate_window)
      const age = exactInteger(resolved.file, `${resolved.pointer}/max_age`, config.max_age)
      if (window === undefined || age === undefined) continue
      if (age > 0n && window > age)
        report.in(
          resolved.file,
          `${resolved.pointer}/duplicate_window`,
          `Stream ${JSON.stringify(key)}: duplicate_window ${window} ns is longer than max_age ${age} ns; nats-server refuses a deduplication window that outlives the messages.`,
          { stream: key },
        )
    }
  },
})

/** The shortest `max_age` and `duplicate_window` nats-server 2.11 takes: 100 ms, in nanoseconds. */
const MINIMUM_DURATION_NS = 100_000_000

/** nats-server 2.11 refuses a max_age or a duplicate_window under 100 ms ("needs to be >= 100ms"). */
export const streamMinimumDuration = natsRule({
  code: 'NATS_STREAM_DURATION',
  description: "A stream's max_age or duplicate_window under 100 ms, which nats-server 2.11 refuses.",
  check(ctx, report) {
    for (const [key, config, resolved] of configs(ctx, 'streams')) {
      for (const field of ['max_age', 'duplicate_window'] as const) {
        const value = config[field]
        if (typeof value === 'number' && value > 0 && value < MINIMUM_DURATION_NS)
          report.in(
            resolved.file,
            `${resolved.pointer}/${field}`,
            `Stream ${JSON.stringify(key)}: ${field} ${value} ns is under 100 ms (100000000 ns), which nats-server refuses.`,
            {
              stream: key,
            },
          )
      }
    }
  },
})

/** API subject spaces a stream may only capture with no_ack, which the closed configuration does not have. */
const API_SPACES: ReadonlyArray<[space: string, allowed: string]> = [
  ['$JS.>', '$JS.EVENT.>'],
  ['$JSC.>', ''],
  ['$SYS.>', '$SYS.ACCOUNT.>'],
]

/**
 * What nats-server 2.11 refuses in a stream's own subjects list: one subject twice ("duplicate
 * subjects detected"), `>` alone ("capturing all subjects requires no-ack"), and subjects inside the
 * JetStream or system API spaces ("... require no-ack to be true"); the closed v0.2 configuration
 * has no no_ack, so those are unsupported. O(subjects).
 */
export const streamSubjects = natsRule({
  code: 'NATS_STREAM_SUBJECTS',
  description: "A stream's subjects list that nats-server 2.11 refuses: a subject twice, `>` alone, or a subject in the $JS, $JSC or $SYS API spaces.",
  check(ctx, report) {
    for (const [key, config, resolved] of configs(ctx, 'streams')) {
      const list = Array.isArray(config.subjects) ? config.subjects : []
      const seen = new Set<string>()
      list.forEach((subject: unknown, i: number) => {
        if (typeof subject !== 'string') return
        const at = `${resolved.pointer}/subjects/${i}`
        const refuse = (why: string) => report.in(resolved.file, at, `Stream ${JSON.stringify(key)}: ${why}`, { stream: key })
        if (seen.has(subject)) refuse(`${JSON.stringify(subject)} is listed twice; nats-server refuses duplicate subjects.`)
        seen.add(subject)
        if (subject === '>')
          refuse('">" captures every subject, which nats-server allows only with no_ack, not part of the closed v0.2 configuration (unsupported).')
        for (const [space, allowed] of API_SPACES)
          if (subjectsOverlap(subject, space) && subject !== '>' && !(allowed && subjectWithin(subject, allowed)))
            refuse(
              `${JSON.stringify(subject)} captures ${space} API subjects, which nats-server allows only with no_ack, not part of the closed v0.2 configuration (unsupported).`,
            )
      })
    }
  },
})
