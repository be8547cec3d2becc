import { createRequire } from 'node:module'
import { schemaValidator } from '../src/runtime/schema-check.ts'
const require = createRequire(import.meta.url)
const Ajv = require('ajv')
const s = JSON.parse(process.argv[2]); const d = JSON.parse(process.argv[3])
const a = new Ajv({ allErrors: true, ownProperties: true, strict: false, validateFormats: false, unicodeRegExp: true }).compile(s)
const o = schemaValidator(s)
console.log('ajv', a(d), JSON.stringify(a.errors, null, 0))
console.log('our', o(d), JSON.stringify(o.errors, null, 0))
