/**
 * Which changes to a stream or consumer can lose data, field by field (the table in docs/nats.md,
 * "Provisioning"). A change that can drop stored messages, drop messages the stream stores today,
 * or weaken a stored message's protection (copies, deduplication, redelivery) is a loss; provisioning
 * applies it only with `allowDataLoss`. Everything else (growth, timing) is applied by `update`.
 * Each rule is O(size of the two values): at most one pass over a subject list for each subject.
 */
import { subjectWithin } from '../wildcards.js'

/** A server limit of 0 or -1 (or none) means "no limit". */
const limitOf = (value: unknown): number => (typeof value === 'number' && value > 0 ? value : Infinity)

/** The field's new value is a smaller limit than the server's (an unlimited server value is larger than any). */
const shrinks = (what: string) => (contract: unknown, server: unknown) =>
  limitOf(contract) < limitOf(server) ? `lowers ${what}: what is stored beyond the new limit is deleted` : undefined

type Rule = (contract: unknown, server: unknown) => string | undefined

const STREAM: Readonly<Record<string, Rule>> = {
  // A server subject within one of the contract's is still stored (`orders.eu.>` widened to
  // `orders.>`); one within none may not be (one the new subjects cover only together is counted,
  // as the diff warns of it: pairwise is exact for one against one).
  subjects: (contract, server) => {
    const kept = (Array.isArray(contract) ? contract : []).filter((s): s is string => typeof s === 'string')
    const removed = (Array.isArray(server) ? server : []).filter((s) => typeof s !== 'string' || !kept.some((k) => subjectWithin(s, k)))
    return removed.length > 0
      ? `stops storing ${removed.map((s) => JSON.stringify(s)).join(', ')}: publications there are no longer kept and stored ones no longer match the stream`
      : undefined
  },
  // To limits, messages are kept by the limits alone, which bound them under every retention.
  retention: (contract) =>
    contract === 'limits' ? undefined : 'changes retention: messages are then deleted by another rule (on acknowledgement or without interest)',
  storage: () => 'changes storage: the stored messages would have to move (memory storage loses them on a restart)',
  num_replicas: (contract, server) =>
    typeof contract === 'number' && typeof server === 'number' && contract < server ? 'keeps fewer copies of every stored message' : undefined,
  max_age: shrinks('max_age'),
  max_msgs: shrinks('max_msgs'),
  max_bytes: shrinks('max_bytes'),
  discard: (contract) => (contract === 'old' ? 'discard old: a full stream deletes stored messages instead of refusing new ones' : undefined),
  duplicate_window: (contract, server) =>
    limitOf(contract) < limitOf(server) ? 'shortens the deduplication window: a retry published later is stored twice' : undefined,
}

const CONSUMER: Readonly<Record<string, Rule>> = {
  // A wider filter still matches every message pending under the old one.
  filter_subject: (contract, server) =>
    typeof contract === 'string' && typeof server === 'string' && subjectWithin(server, contract)
      ? undefined
      : 'changes the filter: messages pending under the old filter that the new one does not match are never delivered',
  max_deliver: (contract, server) =>
    limitOf(contract) < limitOf(server) ? 'lowers max_deliver: messages already delivered that often are not redelivered' : undefined,
}

/** What changing `field` from the server's value to the contract's loses, or undefined when nothing is lost. */
export function lossOf(kind: 'stream' | 'consumer', field: string, contract: unknown, server: unknown): string | undefined {
  const rules = kind === 'stream' ? STREAM : CONSUMER
  return Object.hasOwn(rules, field) ? rules[field]!(contract, server) : undefined
}
