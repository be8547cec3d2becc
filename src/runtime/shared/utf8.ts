/**
 * Text a peer sent, read strictly: JSON exchanged between systems MUST be UTF-8 (RFC 8259, section
 * 8.1), so bytes that are not UTF-8 throw (a `TypeError`) instead of turning into U+FFFD, which would
 * hand a handler data no peer sent. A byte order mark is kept, not dropped: senders MUST NOT add one
 * (the same section), `JSON.parse` then refuses the text, and so does the Rust target's serde_json,
 * so both targets give one verdict.
 */
export const strictUtf8 = /* @__PURE__ */ new TextDecoder('utf-8', { fatal: true, ignoreBOM: true })
