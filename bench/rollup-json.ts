/** The plain-JSON twin's JSON import for Rollup, which has none of its own: JSON text as a default export (what @rollup/plugin-json does, without its named exports). */
import { readFile } from 'node:fs/promises'

export function json() {
  return {
    name: 'json',
    async load(id: string) {
      if (!id.endsWith('.json')) return null
      return `export default ${await readFile(id, 'utf8')}`
    },
  }
}
