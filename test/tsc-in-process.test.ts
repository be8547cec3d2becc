/**
 * The in-process `tsc` the type-checking tests use (helpers/tsc-in-process.ts) says what the `tsc`
 * binary says: the same output, byte for byte, and the same exit status, on a passing program, a
 * failing one (errors in two files, through `extends`), a broken tsconfig and a syntax error; and a
 * program checked after others that shared its parsed library files is judged the same.
 */
import { mkdirSync, rmSync, writeFileSync } from 'node:fs'
import { join } from 'node:path'
import { describe, expect, it } from 'vitest'
import { tscProcess } from './helpers/cli.js'
import { tscInProcess } from './helpers/tsc-in-process.js'

const work = join(import.meta.dirname, '.tmp/tsc-in-process')

function project(name: string, files: Record<string, string>): string {
  const dir = join(work, name)
  rmSync(dir, { recursive: true, force: true })
  mkdirSync(dir, { recursive: true })
  for (const [file, text] of Object.entries(files)) writeFileSync(join(dir, file), text)
  return dir
}

const base = JSON.stringify({ compilerOptions: { strict: true, noEmit: true, target: 'ES2022', module: 'ESNext', moduleResolution: 'bundler', types: [] } })

describe('tsc in process', () => {
  const cases: Array<[string, Record<string, string>, string[]]> = [
    [
      'passing, with @types/node',
      {
        'tsconfig.json': JSON.stringify({ compilerOptions: { strict: true, noEmit: true, module: 'ESNext', moduleResolution: 'bundler', types: ['node'] } }),
        'a.ts': "import { readFileSync } from 'node:fs'\nexport const n: number = readFileSync('x').length\n",
      },
      ['-p', '.'],
    ],
    [
      'failing in two files, through extends',
      {
        'base.json': base,
        'tsconfig.wrong.json': JSON.stringify({ extends: './base.json', files: ['a.ts', 'b.ts'] }),
        'a.ts': "import { b } from './b.js'\nexport const a: number = b\n",
        'b.ts': 'export const b: string = 1\nexport const c = missing\n',
      },
      ['-p', 'tsconfig.wrong.json'],
    ],
    [
      'a broken tsconfig',
      { 'tsconfig.json': JSON.stringify({ compilerOptions: { strict: 'yes', noSuchOption: true }, files: ['a.ts'] }), 'a.ts': 'export const a = 1\n' },
      ['-p', '.'],
    ],
    ['a syntax error', { 'tsconfig.json': base.replace('}}', '}, "files": ["a.ts"]}'), 'a.ts': 'export const a = (1\n' }, ['-p', '.']],
  ]
  it.each(cases)('%s: the output and exit status of the tsc binary', (name, files, args) => {
    const dir = project(name.replace(/\W+/g, '-'), files)
    // With --skipDefaultLibCheck, as helpers/cli.ts's tsc() passes it.
    const inProcess = tscInProcess(['--skipDefaultLibCheck', ...args], dir)
    expect(inProcess).toEqual(tscProcess(['--skipDefaultLibCheck', ...args], dir))
    if (name.startsWith('failing')) expect(inProcess.output.split('\n').filter((l) => / error TS/.test(l)).length).toBeGreaterThanOrEqual(3)
    // Again, with every library file already parsed by an earlier program.
    expect(tscInProcess(['--skipDefaultLibCheck', ...args], dir)).toEqual(inProcess)
  })
})
