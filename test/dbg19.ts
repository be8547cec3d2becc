import { createChannel } from '../src/runtime/nats.ts'
import { hot } from '../bench/measure.ts'
const channel = createChannel<{ region: string; id: string }, never>({
  id: 'c', address: 'svc.{region}.{id}.done', template: ['svc', { param: 'region' }, { param: 'id' }, 'done'],
  parameters: { region: { kind: 'enum', values: ['eu', 'us', 'ap'] }, id: { kind: 'token', alphabet: 'lower', first: 'letter', minLength: 4, maxLength: 40, prefix: 'e-' } } as any,
  filters: [], source: { file: 'x', pointer: '', line: 1, column: 1 },
} as any)
const ids = Array.from({ length: 1000 }, (_, i) => `e-k${i.toString(36)}abc`)
const regions = ['eu', 'us', 'ap']
const N = 200_000
for (let k = 0; k < 3; k++) {
  const checked = await hot((i) => channel.subject!.render({ region: regions[i % 3]!, id: ids[i % 1000]! }), N, 9)
  const literal = await hot((i) => { const p = { region: regions[i % 3]!, id: ids[i % 1000]! }; return `svc.${p.region}.${p.id}.done` }, N, 9)
  console.log((checked / literal).toFixed(2), checked.toFixed(2), literal.toFixed(2))
}
