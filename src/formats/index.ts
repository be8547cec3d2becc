/**
 * The built-in formats, in the order they are tried. Core knows none of them: the plugin, the CLI
 * and the package root hand this list to a `ContractCompiler` (docs/architecture.md).
 *
 * Each is registered lazily (`lazyFormat`): its name and the file names it claims are here, and its
 * code is imported on the first file it claims. So importing the package, or the plugin, loads
 * no format; a NATS compile loads NATS alone. A format's `pattern` here must be the one its own
 * `index.ts` gives (`test/lazy-formats.test.ts` holds them to each other): the NATS one is read
 * from the format's module of document names, which imports nothing. Each also names its module of
 * options (the query keys and `resolveOptions` the format itself has): a compile that the persistent
 * cache answers loads that alone, not the format.
 */
import { lazyFormat, type RegisteredFormat } from '../core/format.js'
import type { BenzeneChecked, BenzeneModel } from './benzene/model.js'
import type { BenzeneOptions } from './benzene/options.js'
import type { JsonSource } from '../core/json-source.js'
import type { DaspInput } from './dasp/load.js'
import type { DaspContext } from './dasp/context.js'
import type { DaspModel } from './dasp/model.js'
import type { NatsInput } from './nats/load.js'
import type { NatsContext } from './nats/context.js'
import type { NatsModel } from './nats/model.js'
import type { NatsOptions } from './nats/options.js'
import { APPLICATION_DOCUMENT_NAME } from './nats/document.js'

/** Benzene contract documents: `*.spec.json`. */
export const benzeneFormat = lazyFormat<JsonSource, BenzeneChecked, BenzeneModel, BenzeneOptions>({
  name: 'benzene',
  pattern: /\.spec\.json$/,
  load: async () => (await import('./benzene/index.js')).benzeneFormat,
  options: async () => {
    const { BENZENE_QUERY_KEYS, resolveBenzeneOptions } = await import('./benzene/options.js')
    return { queryKeys: BENZENE_QUERY_KEYS, resolveOptions: resolveBenzeneOptions }
  },
})

/** AsyncAPI 3.1.0 documents with the `x-nats-contract` profile: `*.asyncapi.yaml`, `*.asyncapi.yml`, `*.asyncapi.json`, `asyncapi.yaml`, `asyncapi.json`. */
export const natsFormat = lazyFormat<NatsInput, NatsContext, NatsModel, NatsOptions>({
  name: 'nats',
  pattern: APPLICATION_DOCUMENT_NAME,
  load: async () => (await import('./nats/index.js')).natsFormat,
  options: async () => {
    const { NATS_QUERY_KEYS, resolveNatsOptions } = await import('./nats/options.js')
    return { queryKeys: NATS_QUERY_KEYS, resolveOptions: resolveNatsOptions }
  },
})

/** DASP extension selections: `*.dasp.json`, with their `*.dasp-ext.json` definitions. */
export const daspFormat = lazyFormat<DaspInput, DaspContext, DaspModel, undefined>({
  name: 'dasp',
  pattern: /\.dasp\.json$/,
  load: async () => (await import('./dasp/index.js')).daspFormat,
  options: async () => {
    const { DASP_QUERY_KEYS, resolveDaspOptions } = await import('./dasp/options.js')
    return { queryKeys: DASP_QUERY_KEYS, resolveOptions: resolveDaspOptions }
  },
})

export const formats: readonly RegisteredFormat<any, any, any, any>[] = [benzeneFormat, natsFormat, daspFormat]

// Each format's codes, which its `codes.ts` adds to core's `DeclaredCodes`: named here so that the
// declarations of the package root (which exports `formats`) load them, and `Diagnostic.code` is
// the union of every format's codes for an application type-checking against the package too.
export type { BenzeneCode } from './benzene/codes.js'
export type { DaspCode } from './dasp/codes.js'
export type { NatsCode } from './nats/codes.js'
