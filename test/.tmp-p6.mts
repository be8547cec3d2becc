import { readFileSync, writeFileSync } from 'node:fs'
import { compile } from '/work/wt-probe6/dist/src/index.js'
const text = readFileSync('/work/wt-probe6/fixtures/nats/client/orders.asyncapi.yaml', 'utf8')
const NOTED = '      noted:\n        payload:'
const variants: Record<string,string> = {
 enum: `      noted:\n        headers:\n          type: object\n          required: [traceId]\n          properties:\n            traceId: { type: string, pattern: "^[0-9a-f]{8}$" }\n            x-tier: { type: string, enum: [gold, silver] }\n            "bad name": { type: string }\n        payload:`,
 integer: `      noted:\n        headers:\n          type: object\n          required: [retry]\n          properties:\n            retry: { type: integer }\n        payload:`,
 nested: `      noted:\n        headers:\n          type: object\n          required: [meta]\n          properties:\n            meta: { type: object }\n        payload:`,
}
for (const [k, v] of Object.entries(variants)) {
  writeFileSync(`/tmp/p6/${k}.asyncapi.yaml`, text.replace(NOTED, v))
  const r = await compile(`/tmp/p6/${k}.asyncapi.yaml`)
  console.log('==', k, JSON.stringify(r.diagnostics.map((d: any) => [d.code, d.message])))
  const dts = r.dts ?? ''
  for (const line of dts.split('\n')) if (/orderNoted|Headers|tier|retry|meta|bad name/.test(line)) console.log(line.slice(0, 300))
}
