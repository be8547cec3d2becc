import { load } from 'js-yaml'
import { readFileSync } from 'node:fs'
const text = readFileSync('/tmp/nb/w.yaml', 'utf8')
try { load(text) ; console.log('js-yaml ok') } catch (e) { console.log(String(e).slice(0, 300)) }
