import { load } from 'js-yaml'
import { natsDocument } from './generate.js'
const text = natsDocument(500)
let open = 0, close = 0, obj = 0, str = 0, other = 0
load(text, { listener: (e: string, s: any) => { if (e === 'open') open++; else { close++; if (s.result && typeof s.result === 'object') obj++; else if (typeof s.result === 'string') str++; else other++ } } } as any)
console.log({ open, close, obj, str, other, len: text.length, lines: text.split('\n').length })
console.log(text.slice(0, 3000))
