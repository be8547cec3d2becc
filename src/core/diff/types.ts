/**
 * `contracts diff`: what two versions of a contract differ by, classified by who the change breaks.
 * Core names no format: each format registers a `FormatDiffer` with its rules; core runs it, applies
 * the ignore file and `--fail-on`, and writes the findings (text, JSON, GitHub annotations, SARIF).
 */

/**
 * How sure a finding is that someone breaks: `breaking` when a break is proven (a witness exists:
 * a payload a receiver now refuses, a subject a publisher can no longer use), `warning` when it can
 * be proven neither way (an unknown schema implication is not assumed safe), `info` when no party
 * can break (a description edited, a subject widened that nobody parses).
 */
export type DiffLevel = 'breaking' | 'warning' | 'info'

/** Where a finding is in one version: positioned as diagnostics are (1-based line and UTF-16 column). */
export interface DiffLocation {
  /** Absolute path of the file (for a git version, the path the file has in the working tree). */
  file: string
  /** JSON Pointer (RFC 6901) into that file's document. */
  pointer: string
  line: number
  column: number
}

/**
 * An audience: a party a finding breaks, named by the format (`client`, `service`, `publisher`,
 * `subscriber`, `requester`, `responder`, `deployment`, `host`, `saved-session`). `--audience` selects
 * by `kind`.
 */
export interface DiffAudience {
  kind: string
  /** Which one, where the format can say: a channel and operation, an application of a bundle, a topic. */
  name?: string
}

export interface DiffFinding {
  /** Stable rule id (kebab-case, e.g. `subject-narrowed`): one of the differ's declared rules. */
  rule: string
  level: DiffLevel
  audiences: DiffAudience[]
  /**
   * In the old version. Something the old version lacks (it is new) is located there at the node
   * that encloses where it is in the new one (the list or map it was added to), never inside an
   * array element (an index is a position, not an identity). Absent only when the old version has
   * no such contract at all (`contract-added`).
   */
  old?: DiffLocation
  /** In the new version; as `old`, mirrored: absent only for `contract-removed`. */
  new?: DiffLocation
  /** One sentence, in the terms of the document (names quoted as the document writes them). */
  message: string
  /** Machine-readable details a rule promises (a witness, the hashes that change, affected applications). */
  data?: Record<string, unknown>
}

/** A rule as the catalogue (`docs/diff.md`, SARIF `rules`) shows it. */
export interface DiffRule {
  id: string
  /** The level it reports at (a rule that can prove or not reports `breaking` or `warning`: list both). */
  levels: readonly DiffLevel[]
  /** The audience kinds it can name. */
  audiences: readonly string[]
  /** One line: what change it finds and why that breaks whom. */
  summary: string
  /** A two-line example: the old and the new fragment (as the document would write them). */
  example: { old: string; new: string }
  /**
   * Its counterpart for the other direction (a schema rule for what a party sends, against the one
   * for what it receives), or why it has none.
   */
  mirror?: { rule: string } | { none: string }
}

/** One version of a contract as a differ receives it: the file and the format's model of it. */
export interface DiffSide<Model> {
  file: string
  model: Model
  /**
   * Reads another file of the same version (a bundle's lock, another application, a locked
   * definition): from the working tree, or from the git version under `--against`. `undefined` when
   * the file is missing there or lies outside the tree the compile was confined to.
   */
  read(file: string): Promise<string | undefined>
}

/**
 * One format's differ. Both versions compiled without errors (a version with errors is reported as
 * diagnostics, and no diff is made). `diff` never throws on what a document holds; its cost is bounded
 * by the documents' sizes (stated per differ).
 */
export interface FormatDiffer<Model = unknown> {
  /** The format's name, as its `ContractFormat.name`. */
  format: string
  rules: readonly DiffRule[]
  diff(old: DiffSide<Model>, next: DiffSide<Model>): DiffFinding[] | Promise<DiffFinding[]>
}
