/**
 * The `Nats-` header names a headers schema names. Names beginning with `Nats-` are the protocol's
 * and JetStream's own (`Nats-Msg-Id`, `Nats-Expected-Stream`, ...): a message may carry them whatever
 * its contract says (a JetStream publish with a message id, a republished message), so the client
 * leaves them out of the headers it checks, except those the schema itself names (in `properties`
 * or `required`, references followed): a contract that requires `Nats-Msg-Id`, so that the stream's
 * `duplicate_window` de-duplicates, has it checked. A module gives a headers validator its names as
 * `[validator, names]`; the sealed validator the descriptor holds keeps them here.
 */
import type { Validator } from '../shared/validation.js'

const NAMED = new WeakMap<Validator, readonly string[]>()

/** The `Nats-` names `validate` checks (none: undefined). */
export const reservedNamesOf = (validate: Validator | undefined): readonly string[] | undefined => (validate === undefined ? undefined : NAMED.get(validate))

/**
 * A module's headers validator entry (`validator`, or `[validator, names]`) as its validator, with
 * `seal` applied and the names kept for it; undefined for anything else. Names that are not
 * strings beginning with `Nats-` are dropped (a module is data the runtime does not trust).
 */
export function headersValidator(entry: unknown, seal: (validate: Validator) => Validator): Validator | undefined {
  const [validate, names] = Array.isArray(entry) ? entry : [entry, undefined]
  if (typeof validate !== 'function') return undefined
  const sealed = seal(validate as Validator)
  if (Array.isArray(names)) {
    const kept = names.filter((n): n is string => typeof n === 'string' && n.startsWith('Nats-'))
    if (kept.length > 0) NAMED.set(sealed, Object.freeze([...new Set(kept)]))
  }
  return sealed
}
