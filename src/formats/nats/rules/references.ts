import { refFilePath, refSites } from '../../../core/json-refs.js'
import { resolveFragment } from '../schemas.js'
import { MAX_STANDARD_REF_HOPS, throughRefs } from '../standard-refs.js'
import { isObject } from '../document.js'
import { unescapeToken } from '../../../runtime/shared/json-pointer.js'
import { natsRule } from './rule.js'
import type { NatsContext } from '../context.js'
import { dirname, join } from 'node:path'
import { standardParts } from './standard-reads.js'

/** Complexity (each rule here, worst case on any input under the size limits): one walk of the document for `$ref` sites, each resolved once: O(document). */

/**
 * Same-document `$ref`s (`#/...`) must name something. Without this an operation could point at a
 * channel that does not exist, or a message at a missing schema, and compile to a module that
 * silently lacks it. References to other files are load.ts's job (locked, never fetched).
 */
export const refResolves = natsRule({
  code: 'NATS_REF_UNRESOLVED',
  description: 'A $ref names nothing: a same-document one in the document, one into a locked file in that file.',
  check(ctx, report) {
    // Most references repeat (every channel's message, say): each is resolved once.
    const resolves = new Map<string, boolean>()
    for (const { ref, pointer } of refSites(ctx.doc)) {
      if (/^[a-z][a-z0-9+.-]*:/i.test(ref)) continue
      const local = ref.startsWith('#')
      // A reference into a locked file is resolved in that file (relative to this document); a
      // file the bundle did not read is the bundle reading's to report (unlocked, missing, ...).
      const hash = ref.indexOf('#')
      const file = local ? ctx.doc : lockedFile(ctx, refFilePath(ref))
      if (file === undefined) continue
      let ok = resolves.get(ref)
      if (ok === undefined) resolves.set(ref, (ok = resolveFragment(file, hash === -1 ? '#' : ref.slice(hash)) !== undefined))
      if (!ok) report(pointer, `$ref ${JSON.stringify(ref)} names nothing in ${local ? 'this document' : 'that file'}.`, { ref })
    }
  },
})

/** The parsed value of a file a reference of this document names, when the bundle's reading read it. */
function lockedFile(ctx: NatsContext, path: string): unknown {
  const file = join(dirname(ctx.main.file), path)
  return (ctx.input.files.get(file) ?? ctx.input.documents.get(file))?.source.value
}

/** A standard position that holds a reference, and what its `$ref` must name there (AsyncAPI 3.0). */
interface RefPosition {
  at: RegExp
  kind: string
  targets: RegExp
}

const NAME = '[^/]+'
const POSITIONS: readonly RefPosition[] = [
  // Operation Object: "channel ... MUST point to a channel definition located in the root Channels Object".
  { at: new RegExp(`^/operations/${NAME}/(?:reply/)?channel/\\$ref$`), kind: 'a channel of the root channels', targets: new RegExp(`^#/channels/${NAME}$`) },
  // "messages ... MUST contain a subset of the messages defined in the channel referenced in this operation".
  {
    at: new RegExp(`^/operations/${NAME}/(?:reply/)?messages/\\d+/\\$ref$`),
    kind: "a message of the operation's channel",
    targets: new RegExp(`^#/channels/${NAME}/messages/${NAME}$`),
  },
  // A component operation may name a component channel; its messages are that channel's all the same.
  {
    at: new RegExp(`^/components/operations/${NAME}/(?:reply/)?channel/\\$ref$`),
    kind: 'a channel',
    targets: new RegExp(`^#/(?:components/)?channels/${NAME}$`),
  },
  {
    at: new RegExp(`^/components/operations/${NAME}/(?:reply/)?messages/\\d+/\\$ref$`),
    kind: "a message of the operation's channel",
    targets: new RegExp(`^#/(?:components/)?channels/${NAME}/messages/${NAME}$`),
  },
  {
    at: new RegExp(`^/(?:components/)?channels/${NAME}/messages/${NAME}/\\$ref$`),
    kind: 'a message',
    targets: new RegExp(`^#/(?:components/messages/${NAME}|channels/${NAME}/messages/${NAME})$`),
  },
  {
    at: new RegExp(`^/(?:components/)?channels/${NAME}/parameters/${NAME}/\\$ref$`),
    kind: 'a parameter',
    // A component parameter, or another channel's (a Reference Object may name any object of its kind in the document).
    targets: new RegExp(`^#/(?:components/parameters/${NAME}|(?:components/)?channels/${NAME}/parameters/${NAME})$`),
  },
  { at: new RegExp(`^/(?:components/)?channels/${NAME}/servers/\\d+/\\$ref$`), kind: 'a server', targets: new RegExp(`^#/servers/${NAME}$`) },
  { at: new RegExp(`^/components/messages/${NAME}/(?:payload|headers)/\\$ref$`), kind: 'a schema', targets: /^#\/components\/schemas\// },
]

/** The standard parts AsyncAPI lets be a Reference Object to the object itself, and what each is. */
const STANDARD_OBJECTS: ReadonlyArray<readonly [RegExp, string]> = [
  [new RegExp(`^/channels/${NAME}/\\$ref$`), 'channel'],
  [new RegExp(`^/operations/${NAME}/\\$ref$`), 'operation'],
  [new RegExp(`^/operations/${NAME}/reply/\\$ref$`), 'reply'],
  [new RegExp(`^/channels/${NAME}/parameters/${NAME}/\\$ref$`), 'parameter'],
]

/**
 * A same-document `$ref` must name an object of the kind its position holds: an operation's channel
 * a channel (not a message, which would leave the operation without one), a channel's message a
 * message (not a schema), an operation's messages messages of that operation's own channel, a
 * message payload a schema. Positions are matched on the pointer alone, so the check is one pass
 * over the `$ref` sites, each against a handful of anchored patterns: O(references).
 */
export const refKind = natsRule({
  code: 'NATS_REF_KIND',
  description:
    "A same-document $ref that names an object of another kind than its position holds (an operation's channel that is a message, a channel message that is a schema, an operation message outside its channel).",
  // Only standard positions are judged (each pattern is anchored at a standard section).
  reads: (ctx) => standardParts(ctx),
  check(ctx, report) {
    for (const { ref, pointer } of refSites(ctx.doc)) {
      // A root channel, root operation, reply or channel parameter the compile could read through
      // its reference was replaced by what it names (standard-refs.ts): one still here could not be.
      const standard = STANDARD_OBJECTS.find(([at]) => at.test(pointer))
      if (standard) {
        const read = throughRefs(ctx.doc, { $ref: ref })
        const kind = standard[1]
        // A parameter's may name one in a locked file (read there, as a message's: external-parts.ts).
        if ('problem' in read && read.problem === 'external' && kind === 'parameter') continue
        if ('problem' in read && read.problem !== 'unresolved')
          report(
            pointer,
            read.problem === 'external'
              ? `$ref ${JSON.stringify(ref)} names a ${kind} in another file; a ${kind} given here by reference is read only from this document (its components, or another of its ${kind}s).`
              : read.problem === 'cycle'
                ? `$ref ${JSON.stringify(ref)} comes back to itself through references (or passes ${MAX_STANDARD_REF_HOPS} of them): it names no ${kind}.`
                : `$ref ${JSON.stringify(ref)} is here to name a ${kind}; ${JSON.stringify(read.ref)} names a value that is no object.`,
            { ref },
          )
        if ('problem' in read) continue
      }
      if (!ref.startsWith('#')) continue
      const position = POSITIONS.find((p) => p.at.test(pointer))
      if (!position) continue
      if (!position.targets.test(ref)) {
        report(pointer, `$ref ${JSON.stringify(ref)} is here to name ${position.kind}; it names something else.`, { ref })
        continue
      }
      // An operation's messages belong to the channel the operation (or its reply) names: root
      // operations and component ones alike (the parser's asyncapi3-operation-messages-from-referred-channel).
      const operation = /^\/(components\/)?operations\/([^/]+)\/(reply\/)?messages\//.exec(pointer)
      if (operation) {
        const section = operation[1]
          ? isObject(ctx.doc.components) && isObject(ctx.doc.components.operations)
            ? ctx.doc.components.operations
            : {}
          : ctx.standard('operations')
        const op = section[unescapeToken(operation[2]!)]
        const owner = isObject(op) ? (operation[3] ? (isObject(op.reply) ? op.reply.channel : undefined) : op.channel) : undefined
        const channel = isObject(owner) && typeof owner.$ref === 'string' ? owner.$ref : undefined
        if (channel !== undefined && !ref.startsWith(`${channel}/messages/`))
          report(pointer, `$ref ${JSON.stringify(ref)} is not a message of the operation's channel ${channel}.`, { ref, channel })
      }
    }
  },
})
