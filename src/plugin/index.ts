import { createUnplugin } from 'unplugin'
import { unpluginFactory } from './factory.js'

/** One unplugin instance; each `plugins/<bundler>.ts` entry exports its bundler's factory. */
export const contracts = /* @__PURE__ */ createUnplugin(unpluginFactory)
