/**
 * Server fields a contract's stream or consumer configuration does not state (it is closed: the
 * profile's fields only), whose value other than the server's default changes what the resource
 * keeps or delivers. Profile v0.2 (Native configuration and authority) checks "native constraints,
 * feature support and effective defaults" against the server: a stream that keeps one message a
 * subject, or a durable consumer the server deletes when idle, is not the contract's resource
 * however equal its stated fields are (an outside pass found both reported in sync).
 *
 * `updatable`: an update can set the default back (provisioning then sends it, since an update
 * keeps what it does not name); otherwise nats-server cannot change it on a live resource (a
 * mirror, a seal, push to pull) and the update is refused, saying so.
 */
export interface ServerDefault {
  /** Whether the server's value is the default (absent is). */
  readonly isDefault: (value: unknown) => boolean
  /** The default an update sends, for an updatable field. */
  readonly value?: unknown
  /** What the server's other value does, as a clause. */
  readonly does: string
  readonly updatable: boolean
}

const absent = (value: unknown) => value === undefined || value === null
const off = (value: unknown) => absent(value) || value === false
const unlimited = (value: unknown) => absent(value) || value === -1 || value === 0
const emptyList = (value: unknown) => absent(value) || (Array.isArray(value) && value.length === 0)
const noTransform = (value: unknown) =>
  absent(value) || (typeof value === 'object' && value !== null && !(value as { dest?: unknown }).dest && !(value as { src?: unknown }).src)

export const SERVER_DEFAULTS: Readonly<Record<'stream' | 'consumer', Readonly<Record<string, ServerDefault>>>> = {
  stream: {
    max_msgs_per_subject: { isDefault: unlimited, value: -1, does: 'keeps at most that many messages of each subject', updatable: true },
    discard_new_per_subject: { isDefault: off, value: false, does: 'refuses a new message of a subject at its limit', updatable: true },
    allow_rollup_hdrs: { isDefault: off, value: false, does: 'lets any publisher purge a subject or the stream with a rollup header', updatable: true },
    sealed: { isDefault: off, does: 'is sealed: it stores nothing more', updatable: false },
    mirror: { isDefault: absent, does: 'mirrors another stream instead of storing what is published to its subjects', updatable: false },
    sources: { isDefault: emptyList, does: 'also stores the messages of other streams', updatable: false },
    subject_transform: { isDefault: noTransform, does: 'stores messages under other subjects than they were published to', updatable: false },
    republish: { isDefault: absent, does: 'publishes every stored message again to other subjects', updatable: false },
  },
  consumer: {
    deliver_subject: {
      isDefault: (value) => absent(value) || value === '',
      does: 'is a push consumer (the profile’s consumers are pull consumers)',
      updatable: false,
    },
    headers_only: { isDefault: off, value: false, does: 'delivers headers only: every payload arrives empty', updatable: true },
    inactive_threshold: {
      isDefault: (value) => absent(value) || value === 0,
      value: 0,
      does: 'is deleted by the server after that long without a pull',
      updatable: true,
    },
  },
}

/** The fields of `kind` a contract leaves unstated whose server value is not the default: field, the default, the server's value. */
export function unstatedDifferences(
  kind: 'stream' | 'consumer',
  contract: Readonly<Record<string, unknown>>,
  server: Readonly<Record<string, unknown>>,
): Array<{ field: string; contract: unknown; server: unknown }> {
  const out: Array<{ field: string; contract: unknown; server: unknown }> = []
  for (const [field, rule] of Object.entries(SERVER_DEFAULTS[kind])) {
    if (Object.hasOwn(contract, field) || rule.isDefault(server[field])) continue
    out.push({ field, contract: rule.value, server: server[field] })
  }
  return out
}
