/**
 * The `Nats-` header names a headers schema names. Names beginning with `Nats-` are the protocol's
 * and JetStream's own (`Nats-Msg-Id`, `Nats-Expected-Stream`, ...): a message may carry them whatever
 * its contract says (a JetStream publish with a message id, a republished message), so the client
 * leaves them out of the headers it checks, except those the schema itself names (in `properties`
 * or `required`, references followed): a contract that requires `Nats-Msg-Id`, so that the stream's
 * `duplicate_window` de-duplicates, has it checked. A module gives a headers validator its names as
 * `[validator, names]`; the sealed validator the descriptor holds keeps them (NAMED).
 */
import type { Validator } from '../shared/validation.js'

/** The prefix of the header names NATS and JetStream reserve for themselves. */
export const RESERVED_PREFIX = 'Nats-'

/**
 * Where a validator holds its names: a registered symbol, so that a client and a module loaded from
 * two copies of the runtime (a bundler that did not dedupe it) still read one another's.
 */
const NAMED = Symbol.for('unplugin-contracts: the Nats- header names a headers schema names')

/** The `Nats-` names `validate` checks (none: undefined). */
export function reservedNamesOf(validate: Validator | undefined): readonly string[] | undefined {
  const names = (validate as { [NAMED]?: unknown } | undefined)?.[NAMED]
  return Array.isArray(names) ? (names as readonly string[]) : undefined
}

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
    const kept = names.filter((n): n is string => typeof n === 'string' && n.startsWith(RESERVED_PREFIX))
    // Read-only once set (a validator shared by two channels has one schema, so the same names).
    if (kept.length > 0 && reservedNamesOf(sealed) === undefined)
      Object.defineProperty(sealed, NAMED, { value: Object.freeze([...new Set(kept)]), enumerable: false, writable: false, configurable: false })
  }
  return sealed
}
