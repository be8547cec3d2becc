import { readFileSync } from 'node:fs'
import { readFile } from 'node:fs/promises'
import { createHash } from 'node:crypto'
import { isUtf8 } from 'node:buffer'
const file = '/work/main/bench/.work-profile/p500.asyncapi.yaml'
const med = (xs: number[]) => xs.sort((a, b) => a - b)[Math.floor(xs.length / 2)]!.toFixed(2)
const t = async (name: string, f: () => unknown) => { const xs: number[] = []; for (let i = 0; i < 40; i++) { const s = performance.now(); await f(); xs.push(performance.now() - s) } console.log(name.padEnd(12), med(xs)) }
const b = readFileSync(file)
for (let r = 0; r < 2; r++) {
await t('readFile', () => readFile(file))
await t('readFileSync', () => readFileSync(file))
await t('sha', () => createHash('sha256').update(b).digest('hex'))
await t('isUtf8', () => isUtf8(b))
await t('toString', () => b.toString('utf8'))
await t('rfs utf8', () => readFileSync(file, 'utf8'))
}
import { isAscii } from 'node:buffer'
await t('isAscii', () => isAscii(b))
await t('latin1', () => b.toString('latin1'))
await t('ascii', () => b.toString('ascii'))
await t('TextDecoder', () => new TextDecoder().decode(b))
console.log(isAscii(b))
