import { ContractCompiler } from '../src/index.ts'
const file = '/work/main/bench/.work-profile/p500.asyncapi.yaml'
for (let i = 0; i <= 100; i++) {
  await new ContractCompiler().compile(file)
  if (i % 20 === 0) { (globalThis as any).gc(); console.log(i, (process.memoryUsage().heapUsed / 1e6).toFixed(1), 'MB') }
}
