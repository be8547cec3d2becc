import { lstat, readFile } from 'node:fs/promises'
import { createHash } from 'node:crypto'
const file = '/work/main/bench/.work-profile/p500.asyncapi.yaml'
const dec = new TextDecoder('utf-8', { fatal: true })
const med = async (f: () => Promise<unknown>) => { for (let i = 0; i < 20; i++) await f(); const ts: number[] = []; for (let i = 0; i < 40; i++) { const s = performance.now(); await f(); ts.push(performance.now() - s) } ts.sort((x, y) => x - y); return ts[20]!.toFixed(2) }
console.log('lstat x5', await med(async () => { for (const p of ['/work/main/bench/.work-profile/bundle.lock.json', '/work/main/bench/bundle.lock.json', '/work/main/bundle.lock.json', '/work/bundle.lock.json', '/bundle.lock.json']) await lstat(p).catch(() => 0) }))
console.log('readFile', await med(async () => readFile(file)))
const b = await readFile(file)
console.log('sha', await med(async () => createHash('sha256').update(b).digest('hex')))
console.log('decode', await med(async () => dec.decode(b)))
import { isUtf8 } from 'node:buffer'
console.log('isUtf8+toString', await med(async () => isUtf8(b) && b.toString('utf8')))
console.log('readFile utf8', await med(async () => readFile(file, 'utf8')))
