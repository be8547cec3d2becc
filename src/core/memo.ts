/**
 * `compute` with its results kept per string key, at most `limit` of them (all dropped when full).
 * For what contracts supply, such as patterns: few per document, but a long-lived dev server
 * compiling edit after edit should not keep every one it ever saw.
 */
export function memoized<T>(compute: (key: string) => T, limit = 4096): (key: string) => T {
  const kept = new Map<string, T>()
  return (key) => {
    let value = kept.get(key)
    if (value === undefined && !kept.has(key)) {
      value = compute(key)
      if (kept.size >= limit) kept.clear()
      kept.set(key, value)
    }
    return value as T
  }
}

/**
 * Results kept by a content key (the JSON text of what they were computed from) across the
 * compiles of one `ContractCompiler`, so that an edit of one topic or channel does not redo the
 * work for the others (a dev server recompiles a whole document on every save). Bounded by the
 * characters of its keys and values together: all dropped when full, as `memoized` does.
 */
export class ContentMemo<T> {
  private readonly kept = new Map<string, T>()
  private size = 0
  /** Lookups answered and not answered (tests and benchmarks read them: what a recompile redid). */
  hits = 0
  misses = 0

  constructor(private readonly limit = 16 * 1024 * 1024) {}

  get(key: string): T | undefined {
    const value = this.kept.get(key)
    if (value === undefined) this.misses++
    else this.hits++
    return value
  }

  /** Keeps `value` under `key`; `size` is what it holds in characters (or bytes), beside the key's. */
  set(key: string, value: T, size: number): void {
    if (this.kept.has(key)) return
    const added = key.length + size
    if (this.size + added > this.limit) this.clear()
    if (added > this.limit) return
    this.kept.set(key, value)
    this.size += added
  }

  clear(): void {
    this.kept.clear()
    this.size = 0
  }
}

/**
 * The content memos of one `ContractCompiler`, by name: what a stage keeps for the next compile.
 * A format names its own (`benzene:schemas`); what core keeps is named in core
 * (`schema-code`). A compiler made for one compile (a benchmark's fresh compiler, a CLI run)
 * starts with none, so every figure it times is a cold compile's.
 */
export class CompileMemos {
  private readonly memos = new Map<string, ContentMemo<unknown>>()
  private readonly held = new Map<string, { clear(): void }>()

  /** What a stage keeps in a shape of its own (made by `make` on first use), by name; `clear` empties it. */
  kept<T extends { clear(): void }>(name: string, make: () => T): T {
    let value = this.held.get(name)
    if (value === undefined) this.held.set(name, (value = make()))
    return value as T
  }

  of<T>(name: string): ContentMemo<T> {
    let memo = this.memos.get(name)
    if (!memo) this.memos.set(name, (memo = new ContentMemo<unknown>()))
    return memo as ContentMemo<T>
  }

  clear(): void {
    for (const memo of this.memos.values()) memo.clear()
    for (const value of this.held.values()) value.clear()
  }
}

/**
 * One value per file, for the files compiled last (at most `limit`: the least recently used is
 * dropped first): what a stage kept of a file's last compile for its next one.
 */
export class LastPerFile<T> {
  private readonly files = new Map<string, T>()

  constructor(private readonly limit = 16) {}

  get(file: string): T | undefined {
    return this.files.get(file)
  }

  set(file: string, value: T): void {
    this.files.delete(file)
    this.files.set(file, value)
    if (this.files.size > this.limit) this.files.delete(this.files.keys().next().value!)
  }

  delete(file: string): void {
    this.files.delete(file)
  }

  clear(): void {
    this.files.clear()
  }
}

/** Whether two lists of what a result was made from hold the same values (by identity), in order. */
export function sameReads(a: readonly unknown[], b: readonly unknown[]): boolean {
  if (a.length !== b.length) return false
  for (let i = 0; i < a.length; i++) if (a[i] !== b[i]) return false
  return true
}
