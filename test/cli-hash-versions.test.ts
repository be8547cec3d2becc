/**
 * `contracts hash --topic` on a topic with an unversioned entry and versioned ones (Benzene Contract
 * Document §2: an absent version is an entry of its own): each entry's hash
 * can be asked for, and each equals the topic hash `contracts inspect` and the differ report.
 */
import { writeFileSync } from 'node:fs'
import { join } from 'node:path'
import { describe, expect, it } from 'vitest'
import { contractsInProcess as cli } from './helpers/cli.js'
import { testFolder } from './helpers/temp-folder.js'

const entry = (version?: string) => ({
  topic: 'svc:do',
  ...(version === undefined ? {} : { version }),
  request: { type: 'string' },
  response: { type: 'string' },
})
const document = {
  openapi: '3.0.1',
  info: { title: 'svc', version: '' },
  requests: [entry(), entry('v2'), entry('v3')],
  events: [],
  components: { schemas: {} },
}

describe('contracts hash --topic with several entries of one topic', () => {
  it('--unversioned, --version v2 and --version v3 each pick their own entry, whose hash inspect shows', async () => {
    const dir = testFolder('cli-hash-versions')
    const file = join(dir, 'svc.spec.json')
    writeFileSync(file, JSON.stringify(document, null, 2))
    const inspected = await cli(['inspect', file, '--json'], dir)
    expect(inspected.status, inspected.stderr).toBe(0)
    const hashes = (JSON.parse(inspected.stdout) as { hashes: { topics: Record<string, string> } }).hashes.topics
    const unversioned = await cli(['hash', file, '--topic', 'svc:do', '--unversioned'], dir)
    const v2 = await cli(['hash', file, '--topic', 'svc:do', '--version', 'v2'], dir)
    const empty = await cli(['hash', file, '--topic', 'svc:do', '--version', 'v3'], dir)
    for (const r of [unversioned, v2, empty]) expect(r.status, r.stderr).toBe(0)
    expect(new Set([unversioned.stdout, v2.stdout, empty.stdout]).size).toBe(3)
    expect(Object.values(hashes).sort()).toEqual([unversioned.stdout.trim(), v2.stdout.trim(), empty.stdout.trim()].sort())
    const ambiguous = await cli(['hash', file, '--topic', 'svc:do'], dir)
    expect(ambiguous.status).toBe(2)
    expect(ambiguous.stderr).toContain('pick one of: svc:do --unversioned, svc:do --version v2, svc:do --version v3.')
  })

  it('--unversioned needs --topic, and is not given with --version', async () => {
    const dir = testFolder('cli-hash-versions')
    const file = join(dir, 'svc.spec.json')
    writeFileSync(file, JSON.stringify(document, null, 2))
    for (const args of [
      ['hash', file, '--unversioned'],
      ['hash', file, '--topic', 'svc:do', '--unversioned', '--version', 'v2'],
    ]) {
      const r = await cli(args, dir)
      expect(r.status, args.join(' ')).toBe(2)
    }
  })
})
