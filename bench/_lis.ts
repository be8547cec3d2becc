import { load, CORE_SCHEMA, FAILSAFE_SCHEMA } from 'js-yaml'
import { loadFastYaml } from '../dist/src/core/yaml-fast.js'
import { natsDocument } from './generate.js'
import { paired } from './measure.js'
const text = natsDocument(500)
let n = 0
const r = await paired({ 
default: () => load(text),
core: () => load(text, { schema: CORE_SCHEMA }),
failsafe: () => load(text, { schema: FAILSAFE_SCHEMA }),
noopLis: () => load(text, { listener: () => { n++ } } as any),
fast: () => loadFastYaml(text),
}, 40)
console.log(r)
