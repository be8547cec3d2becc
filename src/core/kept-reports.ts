/**
 * What each rule reported in a file's last check, kept with what it read, for the next check of
 * the same file (a dev server or a watch build checks the whole document again on every save). A
 * rule that declares what it reads (`Rule.reads`: parts of the input, compared by identity) and
 * finds each of them the same value as last time reports again what it reported then, its report
 * calls replayed through this check's runner (so each diagnostic is positioned in this check's
 * text), without running. Values parsed from unchanged text are the same objects from one parse to
 * the next (core/yaml-regions.ts), and never changed once parsed.
 *
 * Only the last check's reports are kept: each check replaces them, so what is held is one check's
 * report calls and the parts of the input they were found in.
 */
export interface ReportCall<File> {
  /** Undefined: in the document compiled; otherwise the file `report.in` named. */
  in: File | undefined
  pointer: string
  message: string
  data: Record<string, unknown> | undefined
  related: readonly unknown[] | undefined
}

interface Kept<File> {
  reads: readonly unknown[]
  calls: ReportCall<File>[]
}

export class KeptReports<File = never> {
  private previous = new Map<object, Kept<File>>()
  private current = new Map<object, Kept<File>>()
  /** Rules whose reports were replayed and rules run, in the last check (tests and benchmarks read them). */
  replayed = 0
  ran = 0

  begin(): void {
    this.current = new Map()
    this.replayed = 0
    this.ran = 0
  }

  end(): void {
    this.previous = this.current
    this.current = new Map()
  }

  /** The calls `rule` made last time, when it read the same values (then kept for the next check too). */
  find(rule: object, reads: readonly unknown[]): ReportCall<File>[] | undefined {
    const kept = this.previous.get(rule)
    if (kept === undefined || kept.reads.length !== reads.length || kept.reads.some((value, i) => value !== reads[i])) return undefined
    this.replayed++
    this.current.set(rule, kept)
    return kept.calls
  }

  keep(rule: object, reads: readonly unknown[], calls: ReportCall<File>[]): void {
    this.ran++
    this.current.set(rule, { reads, calls })
  }

  clear(): void {
    this.previous = new Map()
    this.current = new Map()
  }
}

/** Each file's `KeptReports`, for the files checked last (at most `limit`: the oldest is dropped first). */
export class KeptReportsByFile<File = never> {
  private readonly files = new Map<string, KeptReports<File>>()

  constructor(private readonly limit = 16) {}

  of(file: string): KeptReports<File> {
    let kept = this.files.get(file)
    if (kept === undefined) kept = new KeptReports<File>()
    else this.files.delete(file)
    this.files.set(file, kept)
    if (this.files.size > this.limit) this.files.delete(this.files.keys().next().value!)
    return kept
  }

  clear(): void {
    this.files.clear()
  }
}
