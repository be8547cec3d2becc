/**
 * The Vite dev page, `/__contracts/`: every contract the dev server compiled, with its format, file,
 * identity (contract hash or document digest), exports and current diagnostics (code frames
 * included), and the topology picture of each NATS bundle. The page asks `/__contracts/version`
 * once a second and reloads when a compile changed something, so an edit shows up by itself.
 * Everything from a document is HTML-escaped; the page loads nothing from the network.
 *
 * A picture is laid out once per projection: the page keeps each bundle's SVG with the digest of
 * the projection it was drawn from and draws again only when that digest changes (a reload, or an
 * edit elsewhere, costs a compile check and a hash, not a layout). One entry per bundle.
 */
import { createHash } from 'node:crypto'
import { existsSync } from 'node:fs'
import { basename, dirname, join, relative } from 'node:path'
import type { ContractCompiler } from '../core/compile.js'
import type { CompileResult } from '../core/compile.js'
import { formatDiagnostic, sourceReader } from '../core/report.js'
import { PICTURE_STYLE, xmlText as escape } from '../formats/nats/topology/svg.js'
import { terminalSafe } from '../core/terminal-text.js'
import type { Topology } from '../formats/nats/topology/projection.js'

/**
 * A path or name the page shows as text: HTML-escaped, and its control, direction and separator
 * characters written as code points (`\u{202e}`), as the pictures and the diagnostics show them,
 * so a folder's name cannot reorder or hide what the page says.
 */
const visible = (text: string) => escape(terminalSafe(text))

export const DEV_PAGE = '/__contracts'

interface Entry {
  file: string
  format?: string
  /** The module's export names and the contract's identity, as the format reported them (the module is never read). */
  exports: readonly string[]
  identity?: string
  diagnostics: CompileResult['diagnostics']
  dependencies: string[]
}

const plural = (n: number, word: string) => `${n} ${word}${n === 1 ? '' : 's'}`

/** What the dev server compiled, by file: the latest result of each. */
export class DevRegistry {
  private readonly entries = new Map<string, Entry>()
  /** Bumped on every change; the page reloads when it moves. */
  version = 0
  /** Whether the page was ever served: only then do edits recompile for it (the dev loop pays nothing otherwise). */
  opened = false
  /** Pictures laid out so far (each a layout): a reload of an unchanged bundle adds none. */
  layouts = 0
  /** Each bundle's picture and the digest of the projection it was drawn from. */
  private readonly pictures = new Map<string, { digest: string; svg: string }>()

  /** The bundle's picture: the kept one while the projection is the same, else laid out again (and kept). */
  private async picture(bundle: string, projection: Topology): Promise<string> {
    // The projection is deterministic JSON (nodes and edges in id order), so equal digests are equal pictures.
    const digest = createHash('sha256').update(JSON.stringify(projection)).digest('hex')
    const kept = this.pictures.get(bundle)
    if (kept?.digest === digest) return kept.svg
    const { toSvg } = await import('../formats/nats/topology/svg.js')
    const svg = await toSvg(projection)
    this.layouts++
    this.pictures.set(bundle, { digest, svg })
    return svg
  }

  /** The `diff` option's last word on each saved contract: the breaking findings against the ref, as the terminal shows them. */
  private readonly breaking = new Map<string, string>()

  /** Records what the last diff of a saved contract found breaking (undefined: nothing); the page shows it under the contract. */
  diffed(file: string, warning: string | undefined): void {
    if (this.breaking.get(file) === warning) return
    if (warning === undefined) this.breaking.delete(file)
    else this.breaking.set(file, warning)
    this.version++
  }

  record(result: CompileResult): void {
    // A file that is not there is listed only if it was (a contract deleted while the page is open):
    // a request for any contract-like name that exists nowhere adds nothing (the list stays the
    // files of the tree, not every URL someone sends).
    if (!this.entries.has(result.file) && !existsSync(result.file)) return
    this.entries.set(result.file, {
      file: result.file,
      ...(result.format ? { format: result.format } : {}),
      exports: result.exports ?? [],
      ...(result.identity !== undefined ? { identity: result.identity } : {}),
      diagnostics: result.diagnostics,
      dependencies: result.dependencies,
    })
    this.version++
  }

  files(): string[] {
    return [...this.entries.keys()].sort()
  }

  async page(root: string, compiler: ContractCompiler): Promise<string> {
    const sections: string[] = []
    const bundles = new Set<string>()
    /** NATS documents with no `bundle.lock.json` above them: no topology, and the page says why. */
    const unbundled: string[] = []
    for (const file of this.files()) {
      const e = this.entries.get(file)!
      const read = sourceReader(e.dependencies.length > 0 ? e.dependencies : [file])
      const diagnostics = e.diagnostics
        .map((d) => `<pre class="diagnostic ${d.severity}" data-code="${escape(d.code)}">${escape(formatDiagnostic(d, read))}</pre>`)
        .join('')
      sections.push(`<section class="contract" data-file="${escape(relative(root, file))}">
<h2>${visible(relative(root, file))}</h2>
<p><span class="format">${escape(e.format ?? 'unknown')}</span>${e.identity ? ` <code class="identity">${escape(e.identity)}</code>` : ''}</p>
<p class="exports">${e.exports.length > 0 ? `exports: ${e.exports.map((x) => `<code>${escape(x)}</code>`).join(' ')}` : 'no module (errors)'}</p>
${diagnostics || '<p class="ok">no diagnostics</p>'}${this.breaking.has(file) ? `\n<pre class="diagnostic warning diff">${escape(this.breaking.get(file)!)}</pre>` : ''}
</section>`)
      if (e.format === 'nats') {
        const lock = findLock(file)
        if (lock) bundles.add(dirname(lock))
        else unbundled.push(file)
      }
    }
    for (const bundle of [...bundles].sort()) {
      // The projection compiles NATS documents: loaded with the first bundle drawn, not with the plugin.
      const { topology } = await import('../formats/nats/topology/projection.js')
      const result = await topology(bundle, compiler)
      const lock = relative(root, join(bundle, 'bundle.lock.json'))
      const head = `<h2>Topology of the ${visible(bundleName(bundle))} bundle</h2><p class="lock">locked by <code>${visible(lock)}</code></p>`
      sections.push(
        result.topology
          ? `<section class="topology" data-bundle="${escape(lock)}">${head}<div class="picture">${await this.picture(bundle, result.topology)}</div></section>`
          : `<section class="topology failed" data-bundle="${escape(lock)}">${head}<p>Not drawn: ${plural(result.diagnostics.filter((d) => d.severity === 'error').length, 'error')} in the bundle (above).</p></section>`,
      )
    }
    for (const file of unbundled)
      sections.push(
        `<section class="topology none" data-file="${escape(relative(root, file))}"><h2>No topology for ${visible(relative(root, file))}</h2><p class="why">Not drawn: this document is not in a bundle (no <code>bundle.lock.json</code> in its folder or any folder above it), and a topology is the picture of a bundle: the applications it locks, their links, imports and streams. To see one, put the document in a folder with a <code>bundle.lock.json</code> that lists it and the documents it links to (<code>{"entries": [{"path", "sha256"}]}</code>).</p></section>`,
      )
    return `<!doctype html>
<html lang="en"><head><meta charset="utf-8"><title>Contracts</title>
<style>body{font-family:Helvetica,Arial,sans-serif;margin:16px;color:#111827}section{border-top:1px solid #e5e7eb;padding:8px 0}.format{font-weight:bold}pre.diagnostic{background:#fef2f2;border-left:4px solid #dc2626;padding:8px;white-space:pre-wrap}pre.warning{background:#fffbeb;border-color:#d97706}.ok{color:#059669}${PICTURE_STYLE}</style>
</head><body>
<h1>Contracts compiled by this dev server</h1>
<p id="count">${plural(this.entries.size, 'contract')}</p>
${sections.join('\n')}
<script>
const version = ${this.version};
setInterval(async () => {
  try {
    const now = await (await fetch('${DEV_PAGE}/version')).text();
    if (Number(now) !== version) location.reload();
  } catch {}
}, 1000);
</script>
</body></html>
`
  }
}

/** A bundle by the name of its folder (the lock names none). */
const bundleName = (folder: string) => basename(folder) || folder

/** The nearest `bundle.lock.json` above a file, if any. */
function findLock(file: string): string | undefined {
  for (let dir = dirname(file), i = 0; i < 64; dir = dirname(dir), i++) {
    const lock = join(dir, 'bundle.lock.json')
    if (existsSync(lock)) return lock
    if (dirname(dir) === dir) return undefined
  }
  return undefined
}
