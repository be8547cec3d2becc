import { writeFileSync } from 'node:fs'
import { createHash } from 'node:crypto'
import canonicalize from 'canonicalize'
import { ContractCompiler } from '../dist/src/index.js'
import { paired } from '../bench/measure.ts'
import { benzeneDocument } from '../bench/generate.ts'
const text = benzeneDocument(1000)
const file = '/work/main/bench/.work-profile/b1000.spec.json'
writeFileSync(file, text)
const r = await paired({ baseline: () => createHash('sha256').update(canonicalize(JSON.parse(text))!).digest('hex'), ours: () => new ContractCompiler().compile(file), unchecked: () => new ContractCompiler().compile(file, { benzene: { validate: false } } as any) }, 11)
console.log(r.ms, 'ratio', r.ratio.ours.toFixed(2), r.ratio.unchecked.toFixed(2))
