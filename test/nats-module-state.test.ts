/**
 * NATS keeps what it derives from one document on the checked value (`NatsContext`), never in a
 * module-level table keyed by the document or its objects: eslint.config.js refuses a module-level
 * Map, WeakMap or `let` in src/formats/nats/ outside the content-keyed memo files it allows.
 * `npm test` lints the folder itself (eslint runs beside the suite); this pins that the rule refuses planted tables.
 */
import { existsSync } from 'node:fs'
import { join } from 'node:path'
import { ESLint } from 'eslint'
import { describe, expect, it } from 'vitest'
import { NATS_MODULE_STATE_ALLOWED } from '../eslint.config.js'

const root = join(import.meta.dirname, '..')
// Only the rule under test runs: the others are `npx eslint`'s business.
const eslint = new ESLint({ cwd: root, ruleFilter: ({ ruleId }) => ruleId === 'no-restricted-syntax' })
const isModuleState = (message: { ruleId: string | null; message: string }) =>
  message.ruleId === 'no-restricted-syntax' && message.message.startsWith('No module-level table')

/** The module-level-state problems ESLint reports in `code` as if it were the file `file`. */
async function moduleState(code: string, file: string): Promise<Array<{ line: number }>> {
  const [result] = await eslint.lintText(code, { filePath: join(root, file) })
  return result!.messages.filter(isModuleState).map((m) => ({ line: m.line }))
}

const PLANTED = [
  'const byContext = new WeakMap<object, string[]>()',
  'export const byText = new Map<string, number>() as Map<string, number>',
  'let lastDocument: unknown',
  'export class Facts { static seen = new Map<string, boolean>() }',
  // Made per call, not when the module loads: allowed.
  'export const fresh = () => new Map<string, number>()',
  'export function use(): unknown { return [byContext, lastDocument] }',
].join('\n')

describe('no per-document side table at module level in src/formats/nats', () => {
  it('a planted table, cast or not, a static one and a module-level let are refused, in a rule file too', async () => {
    expect(await moduleState(PLANTED, 'src/formats/nats/planted.ts')).toEqual([{ line: 1 }, { line: 2 }, { line: 3 }, { line: 4 }])
    expect(await moduleState(PLANTED, 'src/formats/nats/rules/planted.ts')).toEqual([{ line: 1 }, { line: 2 }, { line: 3 }, { line: 4 }])
  })

  it('the allowed files are the content-keyed memos, and exist', async () => {
    expect(NATS_MODULE_STATE_ALLOWED.every((file) => existsSync(join(root, file)))).toBe(true)
    expect(await moduleState(PLANTED, NATS_MODULE_STATE_ALLOWED[0]!)).toEqual([])
  })
})
