import { SubjectIndex } from '../subject-index.js'
import { isObject } from '../document.js'
import type { ResolvedConfig } from '../resources.js'
import { escapeToken } from '../../../runtime/shared/json-pointer.js'
import { natsRule } from './rule.js'
import { configs, subjectsOf } from './native.js'

/** Complexity (each rule here, worst case on any input under the size limits): each subject meets the earlier ones through a token index (subject-index.ts), bounded by OVERLAP_PAIR_LIMIT visits. */

/** Index visits the overlap rule makes before it stops (far above a real document's streams). */
export const OVERLAP_PAIR_LIMIT = 5_000_000

/**
 * nats-server refuses a stream whose subjects overlap another stream's ("subjects overlap with an
 * existing stream"), and the profile gives each fact one authority: two differently named streams
 * of the document, or of the document and a contract-owned stream of another document of its
 * bundle, must not share a subject. (Streams of one name are one stream: NATS_DUPLICATE_AUTHORITY
 * and the bundle's own-authority check speak to those.) Each subject meets the earlier ones
 * through a token index (subject-index.ts): O(subjects x tokens + overlaps) for real documents,
 * whatever prefixes they share; past OVERLAP_PAIR_LIMIT index visits the rule reports that it stopped.
 */
export const streamOverlap = natsRule({
  code: 'NATS_STREAM_OVERLAP',
  description:
    'Two differently named streams (in the document, or against a contract-owned stream of its bundle) whose subjects overlap, which nats-server 2.11 refuses.',
  check(ctx, report) {
    interface Entry {
      name: string
      subject: string
      where: string
      /** The document's own stream key, or undefined for another document's stream. */
      key: string | undefined
      file: ResolvedConfig['file']
      /** Position in `entries`: the later of two of the document's own streams is reported. */
      order: number
    }
    const entries: Entry[] = []
    for (const [key, config, resolved] of configs(ctx, 'streams')) {
      const name = config.name
      if (typeof name !== 'string') continue
      subjectsOf(config).forEach((subject, i) =>
        entries.push({ name, subject, where: `${resolved.pointer}/subjects/${i}`, key, file: resolved.file, order: entries.length }),
      )
    }
    for (const other of ctx.input.documents.values()) {
      const profile = isObject(other.source.value) && isObject(other.source.value['x-nats-contract']) ? other.source.value['x-nats-contract'] : undefined
      const streams = profile && isObject(profile.streams) ? profile.streams : {}
      for (const [key, stream] of Object.entries(streams)) {
        if (!isObject(stream) || stream.authority !== 'contract' || !isObject(stream.config) || typeof stream.config.name !== 'string') continue
        const name = stream.config.name
        subjectsOf(stream.config).forEach((subject, i) =>
          entries.push({
            name,
            subject,
            where: `/x-nats-contract/streams/${escapeToken(key)}/config/subjects/${i}`,
            key: undefined,
            file: other,
            order: entries.length,
          }),
        )
      }
    }
    // Each subject is checked against the ones before it through a token index, not pairwise.
    const index = new SubjectIndex<Entry>(OVERLAP_PAIR_LIMIT)
    const reported = new Set<string>()
    let done = true
    for (const b of entries) {
      const earlier = index.overlapping(b.subject)
      if (earlier === undefined) {
        done = false
        break
      }
      for (const a of earlier) {
        if (a.name === b.name || (a.key === undefined && b.key === undefined)) continue
        // Reported at this document's stream (the later one when both are its own).
        const [first, mine] = b.key !== undefined && (a.key === undefined || b.order > a.order) ? [a, b] : [b, a]
        if (reported.has(mine.where)) continue
        reported.add(mine.where)
        report.in(
          mine.file,
          mine.where,
          `Stream ${mine.name}'s subject ${JSON.stringify(mine.subject)} overlaps ${first.subject === mine.subject ? 'the same subject' : JSON.stringify(first.subject)} of stream ${first.name}${first.key === undefined ? ` (${first.file.file})` : ''}; nats-server refuses overlapping streams, and a fact has one authority.`,
          { stream: mine.key, other: first.name },
        )
      }
      index.add(b.subject, b)
    }
    if (!done)
      report(
        '/x-nats-contract/streams',
        `Whether the streams' subjects overlap was not decided within ${OVERLAP_PAIR_LIMIT} steps (unsupported: fewer wildcard subjects).`,
      )
  },
})
