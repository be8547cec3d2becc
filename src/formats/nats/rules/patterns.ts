import { joinPointer } from '../../../runtime/shared/json-pointer.js'
import { linearPatternsIn, patternEngine } from '../../../core/pattern-safety.js'
import { isObject } from '../document.js'
import { generatedCodeTakes } from '../payload-validators.js'
import { localRequestPayload, messageSchemas } from '../message-schemas.js'
import type { NatsRule } from './rule.js'
import type { NatsContext } from '../context.js'
import type { LoadedFile } from '../load.js'

/** Complexity (each rule here, worst case on any input under the size limits): one iterative walk of components and channels, each pattern decided once (linear in its length). */

/**
 * A schema `pattern` (in `components` or a channel's messages) that no engine can run safely on
 * payloads: see `src/core/pattern-safety.ts`. One iterative walk of those two sections: linear in
 * their size, each pattern decided once.
 */
export const patternSupported: NatsRule = {
  code: 'NATS_PATTERN_UNSUPPORTED',
  description:
    'A schema `pattern` that could take super-linear time on a backtracking engine and that the linear-time engine cannot express, or whose linear-time program has more than 1,000 instructions.',
  check(ctx) {
    // The document's components and channels, and every locked file a message payload reaches
    // (reported in that file, at the pattern).
    const { files } = messageSchemas(ctx)
    const sources: Array<[LoadedFile, Array<[unknown, string]>]> = [
      [
        ctx.main,
        [
          [ctx.doc.components, '/components'],
          [ctx.doc.channels, '/channels'],
        ],
      ],
      ...[...files].sort().flatMap((file): Array<[LoadedFile, Array<[unknown, string]>]> => {
        const loaded = ctx.input.files.get(file) ?? ctx.input.documents.get(file)
        return loaded ? [[loaded, [[loaded.source.value, '']]]] : []
      }),
    ]
    for (const [file, stack] of sources) walkPatterns(ctx, file, stack)
    runtimeCheckedPatterns(ctx)
  },
}

const CODE = 'NATS_PATTERN_UNSUPPORTED'

/** Every `pattern` under the stack's values, iteratively; an unsupported one is reported in `file`. */
function walkPatterns(ctx: NatsContext, file: LoadedFile, stack: Array<[unknown, string]>): void {
  while (stack.length > 0) {
    const [value, pointer] = stack.pop()!
    if (Array.isArray(value)) {
      for (let i = 0; i < value.length; i++) stack.push([value[i], joinPointer(pointer, i)])
      continue
    }
    if (!isObject(value)) continue
    if (typeof value.pattern === 'string') {
      const engine = patternEngine(value.pattern)
      if (engine.engine === 'unsupported') {
        ctx.reportIn(file, CODE, joinPointer(pointer, 'pattern'), `Pattern ${JSON.stringify(value.pattern)} is unsupported: ${engine.reason}.`, {
          pattern: value.pattern,
        })
      }
    }
    for (const key of Object.keys(value)) stack.push([value[key], joinPointer(pointer, key)])
  }
}

function runtimeCheckedPatterns(ctx: NatsContext): void {
  // A runtime-checked payload beyond the generated validators' keywords becomes ajv code, which runs
  // every pattern on `RegExp`: there, a pattern not proven cheap has no safe engine. Every
  // message payload is runtime-checked (the channel's validator), so is every such request.
  const { byChannel, own, extra } = messageSchemas(ctx)
  // Request payloads first: a locked schema they reach is one more component (in `extra`).
  const requests = Object.entries(ctx.section('interactions')).map(([key, it]) => {
    const wanted = isObject(it) && Array.isArray(it.capabilities) && it.capabilities.includes('runtime-schema-check') && typeof it.requestOperation === 'string'
    return { key, payload: wanted ? localRequestPayload(ctx, it.requestOperation as string)?.payload : undefined }
  })
  const reached = { ...own, ...extra }
  for (const channel of ctx.channelList) {
    for (const message of byChannel.get(channel.id) ?? []) {
      if (message.payload === undefined || generatedCodeTakes(message.payload, reached)) continue
      const linear = new Map<string, string>()
      linearPatternsIn([message.payload, reached], linear)
      const [first] = linear.keys()
      if (first !== undefined)
        ctx.report(
          CODE,
          ctx.pointer('channels', channel.id, 'messages', message.name),
          `Pattern ${JSON.stringify(first)} needs the linear-time engine, which runs only in the validators the compiler writes; this message's payload schema uses keywords beyond the interpreter's, so its validator would run the pattern on RegExp.`,
          { pattern: first },
        )
    }
  }
  for (const { key, payload } of requests) {
    if (payload === undefined || generatedCodeTakes(payload, reached)) continue
    const linear = new Map<string, string>()
    linearPatternsIn([payload, reached], linear)
    const [first] = linear.keys()
    if (first !== undefined) {
      ctx.report(
        CODE,
        ctx.pointer('x-nats-contract', 'interactions', key, 'capabilities'),
        `Pattern ${JSON.stringify(first)} needs the linear-time engine, which runs only in the validators the compiler writes; this runtime-checked payload schema uses keywords beyond the interpreter's, so its validator would run the pattern on RegExp.`,
        { pattern: first },
      )
    }
  }
}
