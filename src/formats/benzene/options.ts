/** Which payloads generated clients check at run time. */
export type ValidateOption = 'request' | 'response' | 'both' | false

/** Options for Benzene `*.spec.json` contracts (plugin option `benzene`, CLI flags, import query). */
export interface BenzeneOptions {
  /**
   * The topic include-list (seed 5.2). When given and non-empty, exactly these request topics are in
   * scope, reserved ones included. A topic the document does not have fails the build
   * (`BENZENE_UNKNOWN_TOPIC`). Overridden by the import query `?topics=a,b`.
   */
  topics?: readonly string[]
  /** Also admit reserved topics (`benzene:*` or `reserved: true`) when there is no include-list. Query: `?includeReserved`. */
  includeReserved?: boolean
  /**
   * Export names chosen by hand, keyed by topic id (`"payments:get-all": "listPayments"`) or, for
   * one version of a topic, by `topic@version` (`"payments:capture@v2": "capture"`).
   */
  names?: Readonly<Record<string, string>>
  /**
   * Payloads checked at run time by validators generated at build time: requests and event
   * messages before they are sent, responses when they arrive. Default `'both'`. Query: `?validate=request`.
   */
  validate?: ValidateOption
  /**
   * `format: int64` integers: `'number'` (default) types them as `number`, which loses precision
   * past 2^53; `'string'` types and validates them as decimal strings, for services that send them so.
   */
  int64?: 'number' | 'string'
}
