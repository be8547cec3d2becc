import { ContractCompiler } from '../dist/src/index.js'
await new ContractCompiler().compile('/tmp/nb/r500.asyncapi.yaml')
console.log((globalThis as any).__loc)
