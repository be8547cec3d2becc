/**
 * The global subject parser over a projection: "A global parser requires contract/channel identity
 * rather than guessing between application views." `parse` takes the identity and parses with that
 * channel's checked subject; `candidates` lists every channel whose language holds a subject, so a
 * caller can see that a subject is ambiguous without one (two applications' views of a linked
 * channel always are).
 */
import { createSubject, SubjectError, templateTokens } from '../../../runtime/nats/subjects.js'
import type { TokenType } from '../../../runtime/nats/tokens.js'
import type { Topology } from './projection.js'

export interface ChannelIdentity {
  readonly contract: string
  readonly channel: string
}

export interface GlobalSubjectParser {
  /** The parameters of `subject` in that channel; throws `SubjectError` when the channel does not hold it or does not exist. */
  parse(subject: string, identity: ChannelIdentity): Record<string, string>
  /** Every channel (by identity) whose subjects include `subject`, with its parameters. */
  candidates(subject: string): Array<ChannelIdentity & { params: Record<string, string> }>
}

export function globalSubjectParser(topology: Topology): GlobalSubjectParser {
  const subjects = new Map<string, { identity: ChannelIdentity; subject: ReturnType<typeof createSubject<Record<string, string>>> }>()
  for (const node of topology.nodes) {
    if (node.kind !== 'channel' || typeof node.data.address !== 'string') continue
    const identity = { contract: node.contract!, channel: String(node.data.channel) }
    const address = node.data.address
    subjects.set(`${identity.contract}\u0000${identity.channel}`, {
      identity,
      subject: createSubject(address, templateTokens(address), node.data.parameters as Record<string, TokenType>),
    })
  }
  return {
    parse(subject, identity) {
      const entry = subjects.get(`${identity.contract}\u0000${identity.channel}`)
      if (!entry)
        throw new SubjectError('SUBJECT_NO_MATCH', `No addressed channel ${JSON.stringify(identity.channel)} in contract ${JSON.stringify(identity.contract)}.`)
      return entry.subject.parse(subject)
    },
    candidates(subject) {
      const out: Array<ChannelIdentity & { params: Record<string, string> }> = []
      for (const { identity, subject: s } of subjects.values()) {
        const params = s.tryParse(subject)
        if (params) out.push({ ...identity, params })
      }
      return out
    },
  }
}
