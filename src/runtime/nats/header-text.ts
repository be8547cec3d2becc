/**
 * What a NATS header carries as given, by nats.js's reading: a name of printable ASCII but the
 * colon (the header block is MIME-like `Name: value` lines), and a value without a line break or
 * white space at either end (nats.js trims values). Read by the client before it sends, by the
 * checker's rule on headers schemas and by the diff, which compares headers as maps of such
 * strings. No dependency: compile time imports it.
 */

/** A header name NATS carries: printable ASCII without the colon. */
export const HEADER_NAME = /^[!-9;-~]+$/

/** A value nats.js sends as given: no line break, nothing its `trim()` removes at either end. */
export const sentAsGiven = (value: string): boolean => !/[\r\n]/.test(value) && value.trim() === value
