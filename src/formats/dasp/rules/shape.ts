import { daspRule } from './rule.js'

/** Complexity (each rule here, worst case on any input under the size limits): the shape problems context.ts found, each reported once. */

/**
 * The selection's closed shape (../shapes.ts, checked when the context is made). A problem is reported
 * at its member and stops no other rule: the rules read the selection without the malformed parts.
 */
export const shapeRule = daspRule({
  code: 'DASP_SHAPE',
  description:
    "The selection is not { dasp, core, profile, binding, definitions, extensions, policy? } with those members' types, closed (no other member but the annotations $schema, $comment, title, description and x-*, there and in its extension and policy entries); the other rules still judge the readable parts.",
  check(ctx, report) {
    for (const problem of ctx.shapeProblems.get(ctx.input.selection) ?? []) report(problem.pointer, problem.message)
  },
})

/** Each definition's closed shape (../shapes.ts): reported at the member; the other rules read the definition without it. */
export const definitionShape = daspRule({
  code: 'DASP_DEFINITION_SHAPE',
  description:
    'A definition member of the wrong type, an unknown member, or an empty statement (a definition is closed: identity, status, content, supports, dependencies, scopes, operations, settings, attributes, processing, records, examples, evidenceLimits, scopeRelations, and the annotations $schema, $comment, title, description and x-*); the other rules still judge the readable parts.',
  check(ctx, report) {
    for (const { loaded } of ctx.input.definitions) {
      for (const problem of ctx.shapeProblems.get(loaded) ?? []) report.in(loaded, problem.pointer, problem.message)
    }
  },
})
