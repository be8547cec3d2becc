import { withoutOptions } from '../../core/options.js'

/** The import query's keys a DASP selection reads: none. */
export const DASP_QUERY_KEYS: readonly string[] = []

/** A DASP selection takes no options: anything given is `CONTRACTS_UNKNOWN_OPTION`. */
export const resolveDaspOptions = withoutOptions('dasp')
