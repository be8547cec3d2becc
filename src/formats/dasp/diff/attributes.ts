import type { DiffAudience } from '../../../core/diff/types.js'
import { isCommandType } from '../../../runtime/dasp/index.js'
import { joinPointer } from '../../../runtime/shared/json-pointer.js'
import { isObject } from '../../../runtime/shared/json-value.js'
import { canonical, CLIENT, type Findings, HOST, quote, SAVED_SESSION, unique } from './findings.js'
import { locate, type PositionedDocument } from './sides.js'

interface Attribute {
  index: number
  name: string
  type: unknown
  on: string[]
  required: boolean
  class: unknown
}

function attributesOf(d: PositionedDocument): Map<string, Attribute> {
  const out = new Map<string, Attribute>()
  const list: unknown[] = Array.isArray(d.value.attributes) ? d.value.attributes : []
  list.forEach((a, index) => {
    if (!isObject(a) || typeof a.name !== 'string' || out.has(a.name)) return
    const on = Array.isArray(a.on) ? a.on.filter((t): t is string => typeof t === 'string') : []
    out.set(a.name, { index, name: a.name, type: a.type, on, required: a.required === true, class: a.class })
  })
  return out
}

// Commands go from client to host; every other core event (replies, reads, live output) from host to client.
const senders = (types: readonly string[]): DiffAudience[] => unique(types.map((t) => (isCommandType(t) ? CLIENT : HOST)))
const receivers = (types: readonly string[]): DiffAudience[] => unique(types.map((t) => (isCommandType(t) ? HOST : CLIENT)))

/**
 * Whether saved events stop reading as they did (the `saved-session` audience): a saved attribute is
 * saved event data (DASP-EXT-006: a required one keeps its original value on replay and is part of
 * duplicate comparison), and saved event interpretation must survive upgrades (DASP-EXT-008). So
 * it breaks saved sessions when a saved attribute, required or optional, is no longer saved (or
 * gone), moves to other event types, changes whether it is required, or takes a type that refuses
 * values the old one took (an outside pass replayed `{"exseq": 7}` under an optional saved attribute
 * retyped Integer to String: refused); and when a new required saved attribute appears, which
 * saved events lack. An optional attribute becoming saved reads every saved event as before.
 */
function savedEventsBreak(x: Attribute | undefined, y: Attribute | undefined): boolean {
  const wasSaved = x !== undefined && x.class === 'saved'
  const isSaved = y !== undefined && y.class === 'saved'
  if (!wasSaved) return isSaved && y.required
  if (!isSaved) return true
  return canonical([...x.on].sort()) !== canonical([...y.on].sort()) || x.required !== y.required || !within(x.type, y.type)
}

/**
 * CloudEvents types as the values each accepts (docs/dasp.md's table): which type's values are all
 * values of another (`inside[a]` holds b when every a is a b). An absolute URI is a URI-reference,
 * and a URI, a URI-reference, base64 text and a timestamp are all strings; the rest are apart.
 */
const INSIDE: Readonly<Record<string, readonly string[]>> = {
  URI: ['URI-reference', 'String'],
  'URI-reference': ['String'],
  Binary: ['String'],
  Timestamp: ['String'],
}
const within = (a: unknown, b: unknown): boolean =>
  typeof a === 'string' && typeof b === 'string' && (a === b || (Object.hasOwn(INSIDE, a) && INSIDE[a]!.includes(b)))

/**
 * Attributes of one extension's definitions by name: added, removed, type, required, placement and
 * class. Who breaks follows who sends each event type (`on`). Linear in the attributes and their types.
 */
export function compareAttributes(a: PositionedDocument, b: PositionedDocument, uri: string, out: Findings): void {
  const before = attributesOf(a)
  const after = attributesOf(b)
  const at = (x: Attribute, ...tokens: string[]) => joinPointer('', 'attributes', x.index, ...tokens)
  const saved = (x: Attribute | undefined, y: Attribute | undefined) => (savedEventsBreak(x, y) ? [SAVED_SESSION] : [])
  for (const [name, x] of before) {
    if (after.has(name)) continue
    // An optional attribute gone is a warning for its receivers; saved events that carry it no longer
    // read (a saved attribute, optional or not), which breaks saved sessions: their own finding.
    if (!x.required && savedEventsBreak(x, undefined))
      out.add({
        rule: 'dasp-attribute-removed',
        level: 'breaking',
        audiences: [SAVED_SESSION],
        old: locate(a, at(x)),
        new: locate(b, '/attributes'),
        message: `Extension ${quote(uri)} no longer defines saved attribute ${quote(name)}; saved events that carry it no longer read as they did (DASP-EXT-008).`,
      })
    out.add({
      rule: 'dasp-attribute-removed',
      level: x.required ? 'breaking' : 'warning',
      audiences: x.required ? unique([...receivers(x.on), ...saved(x, undefined)]) : receivers(x.on),
      old: locate(a, at(x)),
      new: locate(b, '/attributes'),
      message: `Extension ${quote(uri)} no longer defines ${x.required ? 'required' : 'optional'} attribute ${quote(name)}; receivers of ${x.on.map((t) => quote(t)).join(', ')} ${x.required ? 'refuse events without it' : 'may depend on it'}.`,
    })
  }
  for (const [name, y] of after) {
    const x = before.get(name)
    if (!x) {
      out.add({
        rule: 'dasp-attribute-added',
        level: y.required ? 'breaking' : 'warning',
        audiences: y.required ? unique([...senders(y.on), ...saved(undefined, y)]) : receivers(y.on),
        old: locate(a, '/attributes'),
        new: locate(b, at(y)),
        message: y.required
          ? `Extension ${quote(uri)} defines a new required attribute ${quote(name)}; senders of ${y.on.map((t) => quote(t)).join(', ')} that omit it are refused.`
          : `Extension ${quote(uri)} defines a new optional attribute ${quote(name)}; an optional attribute addition alone is not proof of compatibility.`,
      })
      continue
    }
    const change = (rule: string, member: string, audiences: DiffAudience[], message: string) =>
      out.add({
        rule,
        level: 'breaking',
        audiences: unique([...audiences, ...saved(x, y)]),
        old: locate(a, at(x, member)),
        new: locate(b, at(y, member)),
        message,
      })
    const everyType = [...new Set([...x.on, ...y.on])]
    if (canonical(x.type) !== canonical(y.type)) {
      // Widened (every old value is a new one: URI to String), it breaks only receivers, which meet
      // values they refused, and no saved event; narrowed, only senders (and saved events holding
      // values the new type refuses); otherwise both.
      const widened = within(x.type, y.type)
      const narrowed = within(y.type, x.type)
      change(
        'dasp-attribute-type-changed',
        'type',
        widened ? receivers(everyType) : narrowed ? senders(everyType) : [...senders(everyType), ...receivers(everyType)],
        `Attribute ${quote(name)} of ${quote(uri)} changed its type from ${quote(x.type)} to ${quote(y.type)}${widened ? ', which takes every value the old one took' : narrowed ? ', which refuses values the old one took' : ''}.`,
      )
    }
    if (x.required !== y.required)
      change(
        'dasp-attribute-required-changed',
        'required',
        y.required ? senders(y.on) : receivers(x.on),
        y.required
          ? `Attribute ${quote(name)} of ${quote(uri)} is now required; senders that omit it are refused.`
          : `Attribute ${quote(name)} of ${quote(uri)} is no longer required; receivers that require it refuse events without it.`,
      )
    const oldTypes = new Set(x.on)
    const newTypes = new Set(y.on)
    const moved = everyType.filter((t) => oldTypes.has(t) !== newTypes.has(t))
    if (moved.length > 0)
      change(
        'dasp-attribute-placement-changed',
        'on',
        [...senders(moved), ...receivers(moved)],
        `Attribute ${quote(name)} of ${quote(uri)} changed where it is allowed: ${moved.map((t) => `${newTypes.has(t) ? 'now on' : 'no longer on'} ${quote(t)}`).join(', ')}.`,
      )
    if (canonical(x.class) !== canonical(y.class))
      change(
        'dasp-attribute-class-changed',
        'class',
        [CLIENT, HOST],
        `Attribute ${quote(name)} of ${quote(uri)} is now ${quote(y.class)} instead of ${quote(x.class)}; saved attributes are replayed and compared for duplicates, delivery metadata is not.`,
      )
  }
}
