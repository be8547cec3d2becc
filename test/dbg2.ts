import { standaloneAjv, standaloneValidator } from '../src/core/standalone-validators.ts'
const schemas = { A: { type: 'object', properties: { x: { type: 'string' } }, required: ['x'] } }
for (let r = 0; r < 5; r++) {
  let t = performance.now(); const ajv = standaloneAjv(); const t1 = performance.now() - t
  t = performance.now(); ajv.addSchema({ $id: 'p0', components: { schemas }, allOf: [{ $ref: '#/components/schemas/A' }] }); const t2 = performance.now() - t
  t = performance.now(); standaloneValidator(ajv, 'p0'); const t3 = performance.now() - t
  t = performance.now(); ajv.addSchema({ $id: 'p1', components: { schemas }, allOf: [{ $ref: '#/components/schemas/A' }] }); standaloneValidator(ajv, 'p1'); const t4 = performance.now() - t
  console.log(t1.toFixed(2), t2.toFixed(2), t3.toFixed(2), t4.toFixed(2))
}
