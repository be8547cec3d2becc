import { join } from 'node:path'
import { splitPointer } from '../../runtime/shared/json-pointer.js'
import type { NatsContext } from './context.js'
import { isObject } from './document.js'
import type { LoadedFile } from './load.js'

export interface ResolvedConfig {
  config: unknown
  /** Where the configuration sits: this document, or a locked external artifact. */
  file: LoadedFile
  pointer: string
  authority: 'contract' | 'external'
}

/** A stream's or consumer's configuration, from the document or from its external artifact at its pointer. */
export function resolveConfig(ctx: NatsContext, kind: 'streams' | 'consumers', key: string): ResolvedConfig | undefined {
  const resource = ctx.section(kind)[key]
  if (!isObject(resource)) return undefined
  if (resource.authority === 'contract' && isObject(resource.config)) {
    return { config: resource.config, file: ctx.main, pointer: ctx.pointer('x-nats-contract', kind, key, 'config'), authority: 'contract' }
  }
  if (
    resource.authority !== 'external' ||
    !isObject(resource.artifact) ||
    typeof resource.artifact.path !== 'string' ||
    typeof resource.pointer !== 'string' ||
    !ctx.input.bundle
  )
    return undefined
  const file = ctx.input.files.get(join(ctx.input.bundle.root, ...resource.artifact.path.split('/')))
  if (!file) return undefined
  let value: unknown = file.source.value
  for (const token of splitPointer(resource.pointer)) {
    if (Array.isArray(value) && /^(0|[1-9]\d*)$/.test(token)) value = value[Number(token)]
    else if (isObject(value) && Object.hasOwn(value, token)) value = value[token]
    else return { config: undefined, file, pointer: resource.pointer, authority: 'external' }
  }
  return { config: value, file, pointer: resource.pointer, authority: 'external' }
}
