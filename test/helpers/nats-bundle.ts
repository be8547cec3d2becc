/**
 * Copies of the shop bundle (fixtures/nats/shop) to break in one place: edit a file, relock what
 * should be relocked, and compile.
 */
import { createHash } from 'node:crypto'
import { cpSync, mkdirSync, readFileSync, rmSync, writeFileSync } from 'node:fs'
import { join } from 'node:path'

const source = join(import.meta.dirname, '../../fixtures/nats/shop')
const APPS = ['orders', 'payments', 'shipping'] as const
let count = 0

export class ShopBundle {
  constructor(readonly root: string) {}

  static copy(name: string): ShopBundle {
    const root = join(import.meta.dirname, '../.tmp/nats-bundles', `${name}-${process.pid}-${count++}`)
    rmSync(root, { recursive: true, force: true })
    mkdirSync(root, { recursive: true })
    cpSync(source, root, { recursive: true })
    return new ShopBundle(root)
  }

  path(rel: string): string {
    return join(this.root, ...rel.split('/'))
  }

  doc(app: (typeof APPS)[number]): string {
    return this.path(`${app}/asyncapi/asyncapi.yaml`)
  }

  read(rel: string): string {
    return readFileSync(this.path(rel), 'utf8')
  }

  write(rel: string, text: string): this {
    mkdirSync(join(this.path(rel), '..'), { recursive: true })
    writeFileSync(this.path(rel), text)
    return this
  }

  edit(rel: string, from: string | RegExp, to: string): this {
    const text = this.read(rel)
    const next = text.replace(from, to)
    if (next === text) throw new Error(`edit did not apply to ${rel}: ${String(from)}`)
    return this.write(rel, next)
  }

  /** Gives the payments refund vote the `runtime-schema-check` capability (its payload checked by a generated validator). */
  withRuntimeSchemaCheck(): this {
    return this.edit(
      'payments/asyncapi/asyncapi.yaml',
      '      requestOperation: requestRefundVote\n',
      '      requestOperation: requestRefundVote\n      capabilities: [runtime-schema-check]\n',
    )
  }

  /**
   * Turns the payments refund vote into explicit-manifest dispatch (`dispatch: branches`), with a
   * `manifest` input typed by `schemas` (component name -> flow-YAML schema; `Manifest` among them).
   */
  withBranchManifest(schemas: Record<string, string>): this {
    const doc = 'payments/asyncapi/asyncapi.yaml'
    const refund = "        refund: { source: argument, schema: '#/components/schemas/RefundRequest' }\n"
    return this.edit(
      doc,
      'dispatch: { mode: independent, branchKey: recipient, targetParameter: peerId }',
      'dispatch: { mode: branches, branchKey: declared, branchesInput: manifest, targetParameter: peerId }',
    )
      .edit(doc, refund, `${refund}        manifest: { source: argument, schema: '#/components/schemas/Manifest' }\n`)
      .edit(
        doc,
        '  schemas:\n    RefundRequest:',
        `  schemas:\n${Object.entries(schemas)
          .map(([name, schema]) => `    ${name}: ${schema}\n`)
          .join('')}    RefundRequest:`,
      )
  }

  sha(rel: string): string {
    return createHash('sha256')
      .update(readFileSync(this.path(rel)))
      .digest('hex')
  }

  /**
   * Recomputes import and artifact digests in dependency order, then the lock: by text patterns over
   * the shop documents' flow-style pins, independently of `contracts lock` (test/cli-lock.test.ts
   * holds the command to this as its oracle).
   */
  relock(extraEntries: string[] = []): this {
    const fix = (rel: string) => {
      let text = this.read(rel)
      text = text.replace(/(path: ([\w/.-]+), sha256: )"?\w+"?/g, (_m, head: string, path: string) => `${head}${this.sha(path)}`)
      this.write(rel, text)
    }
    fix('orders/asyncapi/asyncapi.yaml')
    fix('payments/asyncapi/asyncapi.yaml')
    fix('shipping/asyncapi/asyncapi.yaml')
    const entries = ['native/streams.json', 'payments/workflows/refund.yaml', ...APPS.map((a) => `${a}/asyncapi/asyncapi.yaml`), ...extraEntries].map(
      (path) => ({ path, sha256: this.sha(path) }),
    )
    writeFileSync(this.path('bundle.lock.json'), JSON.stringify({ entries }, null, 2) + '\n')
    return this
  }

  lock(): { entries: Array<{ path: string; sha256: string }> } {
    return JSON.parse(this.read('bundle.lock.json'))
  }

  writeLock(lock: unknown): this {
    return this.write('bundle.lock.json', JSON.stringify(lock, null, 2) + '\n')
  }
}
