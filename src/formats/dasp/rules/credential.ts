import { decodedCredential } from '../../../core/credential-scan.js'
import { daspRule } from './rule.js'

/**
 * A secret in the selection or a definition ships with every application built from it (their
 * strings reach the generated module). Both are strict JSON, with no comments: every character
 * outside the syntax is in a decoded key or string, so those are scanned. Checked with the shapes
 * (whatever else is wrong). O(documents): each distinct string scanned once, linearly
 * (core/credential-scan.ts).
 */
export const bundledCredential = daspRule({
  code: 'DASP_BUNDLED_CREDENTIAL',
  description:
    'A string or key of the selection or of a definition carries a credential (a NATS `.creds` armour, an nkey seed, a NATS JWT or a PEM private key), which would ship in the module.',
  check(ctx, report) {
    for (const file of [ctx.input.selection, ...ctx.input.definitions.map((d) => d.loaded)]) {
      const found = decodedCredential(file.source.value)
      if (found)
        report.in(
          file,
          found.pointer,
          `This string carries ${found.kind}; secrets are deployment inputs, never part of a contract (the module would carry it).`,
        )
    }
  },
})
