/** bench/results.json, where `npm run bench` writes every row and a case run alone merges its own. */
import { readFileSync, writeFileSync } from 'node:fs'
import { join } from 'node:path'

export const RESULTS_FILE = join(import.meta.dirname, 'results.json')

/** Replaces `rows` in bench/results.json, keeping every other row (a case run alone refreshes only its own). */
export function mergeIntoResults(rows: Record<string, unknown>): void {
  const current = JSON.parse(readFileSync(RESULTS_FILE, 'utf8')) as Record<string, unknown>
  writeFileSync(RESULTS_FILE, JSON.stringify({ ...current, ...rows }, null, 2) + '\n')
}
