import { decodedCredential } from '../../../core/credential-scan.js'
import { benzeneRule } from './rule.js'

/**
 * A secret in a contract ships with every application built from it: the document's strings reach
 * the generated module (descriptions, names, examples, enums). Benzene documents are strict JSON,
 * which has no comments, so every character outside the syntax is in a decoded key or string
 * (`\u0053` escapes undone): scanning those is scanning the document.
 *
 * Complexity: O(document): each distinct string scanned once, linearly (core/credential-scan.ts).
 */
export const bundledCredential = benzeneRule({
  code: 'BENZENE_BUNDLED_CREDENTIAL',
  description:
    'A string or key of the document carries a credential (a NATS `.creds` armour, an nkey seed, a NATS JWT or a PEM private key), which would ship in the module.',
  check({ doc }, report) {
    const found = decodedCredential(doc)
    if (found) report(found.pointer, `This string carries ${found.kind}; secrets are deployment inputs, never part of a contract (the module would carry it).`)
  },
})
