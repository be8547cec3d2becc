import { readFile, writeFile } from 'node:fs/promises'

/** `payments.spec.json` -> `payments.spec.d.json.ts`, the file TypeScript's `allowArbitraryExtensions` reads. */
export function sidecarPath(file: string): string {
  const dot = file.lastIndexOf('.')
  return `${file.slice(0, dot)}.d${file.slice(dot)}.ts`
}

/** Writes the declarations only when they differ, so watchers and editors see no churn. Returns whether it wrote. */
export async function writeSidecar(file: string, dts: string): Promise<boolean> {
  const path = sidecarPath(file)
  const current = await readFile(path, 'utf8').catch(() => undefined)
  if (current === dts) return false
  await writeFile(path, dts)
  return true
}
