import canonicalize from 'canonicalize'
import type { DiffAudience, DiffFinding, DiffLevel, DiffLocation } from '../../../core/diff/types.js'
import { pinText } from '../../../runtime/dasp/pins.js'

export const CLIENT: DiffAudience = { kind: 'client' }
export const HOST: DiffAudience = { kind: 'host' }
export const SAVED_SESSION: DiffAudience = { kind: 'saved-session' }

/** The three parties a change to what peers authenticate as one selection (DASP-EXT-004) and the saved floor (DASP-EXT-005) reach. */
export const EVERYONE: readonly DiffAudience[] = [CLIENT, HOST, SAVED_SESSION]

/**
 * A name or value as a message quotes it: a string JSON-quoted (so odd characters stay visible),
 * anything else as its canonical JSON; cut short, since a document's names can be any size.
 */
export function quote(value: unknown): string {
  const text = typeof value === 'string' ? JSON.stringify(value) : (canonicalize(value) ?? String(value))
  return text.length > 120 ? text.slice(0, 120) + '…' : text
}

/** Canonical JSON (RFC 8785) for comparing JSON values exactly, whatever their member order; `undefined` stays distinct from every value. */
export function canonical(value: unknown): string {
  if (value === undefined) return '\u0000undefined'
  return canonicalize(value) ?? '\u0000unrepresentable'
}

/**
 * A content pin as peers compare it (DASP-EXT-002): member order ignored, and hex digests in either
 * case one digest (the model spells them in lower case, build-model.ts), so `AB…` to `ab…` is no
 * change. The runtime's reopen check reads pins the same way (runtime/dasp/pins.ts).
 */
export const pinKey: (pin: unknown) => string = pinText

/** Sorted by new location, then old, then rule (the interface's order); an identical finding once. */
export class Findings {
  private readonly list: DiffFinding[] = []
  /** Each finding's canonical text without its data: the duplicate check, and the last tie-break of the order. */
  private readonly keys = new Map<DiffFinding, string>()
  private readonly seen = new Set<string>()

  add(finding: DiffFinding): void {
    // Every member but data, in a fixed order (the finding is built by this differ, so plain JSON text is canonical enough).
    const key = JSON.stringify([finding.rule, finding.level, finding.audiences, finding.old, finding.new, finding.message])
    if (this.seen.has(key)) return
    this.seen.add(key)
    this.keys.set(finding, key)
    this.list.push(finding)
  }

  /**
   * Adds one finding per level for parties a change reaches at different levels (one `DiffFinding`
   * has one level): `breaking` for those it breaks, `warning` for those it may; `info` with no party
   * only when it reaches nobody.
   */
  addByLevel(base: Omit<DiffFinding, 'level' | 'audiences'>, parties: ReadonlyArray<{ audience: DiffAudience; level: DiffLevel }>): void {
    const breaking = parties.filter((p) => p.level === 'breaking').map((p) => p.audience)
    const warning = parties.filter((p) => p.level === 'warning').map((p) => p.audience)
    if (breaking.length > 0) this.add({ ...base, level: 'breaking', audiences: unique(breaking) })
    if (warning.length > 0) this.add({ ...base, level: 'warning', audiences: unique(warning) })
    if (breaking.length === 0 && warning.length === 0) this.add({ ...base, level: 'info', audiences: [] })
  }

  sorted(): DiffFinding[] {
    const where = (l: DiffLocation | undefined) => (l ? [l.file, l.line, l.column, l.pointer] : ['\uffff', 0, 0, ''])
    const compare = (a: DiffFinding, b: DiffFinding): number => {
      for (const [x, y] of [
        [where(a.new), where(b.new)],
        [where(a.old), where(b.old)],
      ] as const)
        for (let i = 0; i < x.length; i++) if (x[i] !== y[i]) return x[i]! < y[i]! ? -1 : 1
      if (a.rule !== b.rule) return a.rule < b.rule ? -1 : 1
      return this.keys.get(a)! < this.keys.get(b)! ? -1 : 1
    }
    return [...this.list].sort(compare)
  }
}

export function unique(audiences: readonly DiffAudience[]): DiffAudience[] {
  const seen = new Set<string>()
  return audiences.filter((a) => {
    const key = a.kind + '\u0000' + (a.name ?? '')
    if (seen.has(key)) return false
    seen.add(key)
    return true
  })
}
