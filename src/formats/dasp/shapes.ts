import { createAjv } from '../../core/standalone-validators.js'
import { escapeToken, splitPointer } from '../../runtime/shared/json-pointer.js'

/**
 * The closed shapes of the three DASP documents this compiler reads: a selection (`*.dasp.json`),
 * an extension definition (`*.dasp-ext.json`) and a content manifest. Every member's JSON type is
 * fixed, no member is unknown, and text the DASP extension contracts say a definition must state is
 * non-empty. Each shape accepts every form the DASP layout (docs/dasp.md) shows, and what an author
 * naturally writes there (`profiles: "any"`; an example as prose or as an example selection entry);
 * it is tighter only where the specification or the layout says MUST.
 *
 * A shape problem does not stop the rules: each problem names the part that is malformed
 * (`prune`), the rules read the document without those parts (`readableView`), and a rule skips
 * only what depends on one of them. Which parts a definition must have is DASP-EXT-002's list,
 * reported by the completeness rule with its own code; the shapes require only what names a
 * document (a definition's identity) or what a part is made of.
 *
 * Complexity: one ajv pass over each document, linear in its size; the readable view copies only
 * the objects on the path to a pruned part.
 */

/**
 * Each member carries a `description`: the hover text of the editor schemas written from these
 * shapes (scripts/editor-schemas.ts), kept here so that the shape and its words are one source.
 * ajv ignores the keyword.
 */
const described = <T extends object>(description: string, schema: T) => ({ description, ...schema })
const text = { type: 'string', minLength: 1 }
const statement = (description: string) => described(description, text)
const str = (description: string) => described(description, { type: 'string' })
const pin = {
  type: ['object', 'string'],
  additionalProperties: false,
  properties: {
    kind: str('The kind of pin: "sha256-manifest" (a manifest of files and their digests) or "git-commit" (a full commit of a repository).'),
    manifest: str('sha256-manifest: the path of the manifest, relative to this file; it is read offline, never fetched.'),
    sha256: str("sha256-manifest: the SHA-256 of the manifest's exact bytes, 64 hex digits."),
    repository: str("git-commit: the repository, as an absolute URI or git's scp-like address (git@host:path)."),
    commit: str('git-commit: the full 40-hex commit id (not a branch or a tag).'),
  },
}
const content = (of: string) =>
  described(
    `The immutable content reference of ${of}: a sha256-manifest or git-commit pin (DASP-EXT-002). A URI, draft name, branch or package version alone does not pin content.`,
    pin,
  )
/**
 * `"$schema"`: the JSON Schema an editor associates with the file (what JSON editors write to name
 * the published schema). The project's own file format: no DASP specification closes the root to
 * it, and it carries no meaning, so the rules, the request and the diff never read it; the bytes a
 * pin covers are the file as written, this member included.
 */
const editorSchema = { type: 'string', description: 'The JSON Schema an editor checks this file with (a path or URL); the build does not read it.' }

/**
 * The annotations producers write in a document of their own, allowed beside the members of a
 * selection, its extension and policy entries, and a definition: `$comment`, `title`,
 * `description` (text) and any `x-` member (anything), as JSON Schema, OpenAPI and AsyncAPI allow
 * them. The shapes stay closed to any other member (a typo such as `compatibilty` is caught), and
 * a setting is never one: the settings are closed (DASP-EXT-002). No rule, request or diff reads
 * them; a definition's pin covers its bytes as written, these included (an outside pass found
 * `description` and `x-` members refused while `$schema` passed).
 */
const annotatable = <T extends { properties: Record<string, unknown> }>(shape: T) => ({
  ...shape,
  properties: {
    $comment: str('A comment for readers; the build does not read it.'),
    title: str('A title for readers; the build does not read it.'),
    description: str('A description for readers; the build does not read it.'),
    ...shape.properties,
  },
  patternProperties: { '^x-': { description: 'An extension member (x-...): the build does not read it.' } },
})

const contract = {
  type: 'object',
  additionalProperties: false,
  required: ['uri', 'version', 'content'],
  properties: {
    uri: str("The contract's identity, an absolute URI; compared exactly, never fetched."),
    version: str("The contract's version, compared exactly (no ranges)."),
    content: content('this contract'),
  },
}

export const SELECTION_SHAPE = annotatable({
  type: 'object',
  additionalProperties: false,
  required: ['dasp', 'core', 'profile', 'binding', 'definitions', 'extensions'],
  properties: {
    $schema: editorSchema,
    dasp: str('The DASP version this selection is written for (for example "draft-01").'),
    core: described('The exact core contract: identity, version and content pin.', contract),
    profile: described('The exact application profile: identity, version and content pin.', contract),
    binding: described('The exact transport binding: identity, version and content pin.', contract),
    definitions: described('The extension definition files (*.dasp-ext.json) this selection reads, as paths relative to it; nothing is fetched.', {
      type: 'array',
      items: { type: 'string' },
    }),
    extensions: described('The requested extensions, each with its scope and complete settings; required dependencies must be requested too.', {
      type: 'array',
      items: annotatable({
        type: 'object',
        additionalProperties: false,
        required: ['uri', 'version', 'scope', 'settings'],
        properties: {
          uri: str("The extension's identity, an absolute URI, as its definition states it."),
          version: str("The extension's version, as its definition states it."),
          scope: str('The scope it is selected in: one of the scopes its definition supports (connection, session, command).'),
          settings: described("The extension's settings: every setting its definition declares, each within the definition's rules.", { type: 'object' }),
        },
      }),
    }),
    policy: described('Host policy: the extensions a host requires, which a selection must then request.', {
      type: 'object',
      additionalProperties: false,
      required: ['requires'],
      properties: {
        requires: described('Each extension the host requires, by identity and version, optionally in one scope.', {
          type: 'array',
          items: annotatable({
            type: 'object',
            additionalProperties: false,
            required: ['uri', 'version'],
            properties: {
              uri: str("The required extension's identity."),
              version: str("The required extension's version."),
              scope: str('The scope it is required in; any scope when absent.'),
            },
          }),
        }),
      },
    }),
  },
})

const example = { type: ['string', 'object'], minLength: 1, minProperties: 1 }

const setting = {
  type: 'object',
  additionalProperties: false,
  required: ['type'],
  properties: {
    type: str("The setting's value type (string, integer, number, boolean, array)."),
    persistence: str('"session" when the setting stays a session requirement across connections; otherwise a fresh connection setting.'),
    unit: statement('The unit of the value (for example "s", "bytes").'),
    minimum: described('The smallest value allowed.', { type: 'number' }),
    maximum: described('The largest value allowed.', { type: 'number' }),
    values: described('The only values allowed.', { type: 'array', minItems: 1 }),
    minItems: described('An array setting: the fewest elements.', { type: 'integer', minimum: 0 }),
    maxItems: described('An array setting: the most elements.', { type: 'integer', minimum: 0 }),
    // A JSON Schema for one element: an object, or `true`/`false`.
    items: described('An array setting: a JSON Schema each element must satisfy.', { type: ['object', 'boolean'] }),
    uniqueBy: statement('An array setting: the member of an element that must be unique across elements.'),
    description: statement('What the setting means.'),
  },
}

export const DEFINITION_SHAPE = annotatable({
  type: 'object',
  additionalProperties: false,
  required: ['identity'],
  properties: {
    $schema: editorSchema,
    identity: described("The extension's identity: an absolute URI and a non-empty version, compared exactly (DASP-EXT-002).", {
      type: 'object',
      additionalProperties: false,
      required: ['uri', 'version'],
      properties: { uri: str("The extension's identity, an absolute URI; never fetched."), version: str("The extension's version.") },
    }),
    status: statement('The status of this version (for example "draft").'),
    content: content('this definition: it pins every normative source, schema and dependency definition'),
    supports: described('The exact core, profile and binding contracts the extension supports.', {
      type: 'object',
      additionalProperties: false,
      properties: {
        core: described('The supported core contracts, each exact.', { type: 'array', minItems: 1, items: contract }),
        // The exact profiles, or "any" when the extension states rules for every profile.
        profiles: described('The supported profiles, each exact, or "any" when the extension states rules for every profile.', {
          type: ['array', 'string'],
          if: { type: 'string' },
          then: { const: 'any' },
          else: { minItems: 1, items: contract },
        }),
        bindings: described('The supported bindings, each exact.', { type: 'array', minItems: 1, items: contract }),
      },
    }),
    // `[]` states that there are none (DASP-EXT-002); each is an exact identity with its scope.
    dependencies: described('Every required extension dependency with its exact identity, version and scope; [] states that there are none.', {
      type: 'array',
      items: {
        type: 'object',
        additionalProperties: false,
        required: ['uri', 'version', 'scope'],
        properties: {
          uri: str("The dependency's identity."),
          version: str("The dependency's version."),
          scope: str('The scope the dependency must be selected in.'),
        },
      },
    }),
    scopes: described('The scopes the extension can be selected in: connection, session, command.', {
      type: 'array',
      minItems: 1,
      uniqueItems: true,
      items: { type: 'string' },
    }),
    scopeRelations: statement('How the requirements of its scopes relate, when it has more than one.'),
    operations: described('The operations the extension affects.', { type: 'array', minItems: 1, items: text }),
    settings: described('The closed selection settings, by name: value type, unit, limits and validation rules.', {
      type: 'object',
      additionalProperties: setting,
    }),
    attributes: described('The CloudEvents extension attributes the extension uses, with their types and the events that carry them.', {
      type: 'array',
      items: {
        type: 'object',
        additionalProperties: false,
        required: ['name', 'type'],
        properties: {
          name: str("The attribute's name."),
          type: str("The attribute's CloudEvents type."),
          on: described('The event types that may carry it.', { type: 'array', items: { type: 'string' } }),
          required: described('True when every event it is on must carry it.', { type: 'boolean' }),
          class: str('The class of the attribute (for example "evidence").'),
          description: statement('What the attribute carries.'),
        },
      },
    }),
    processing: statement('Processing order, permission checks, errors, and what happens when evidence is absent or invalid.'),
    records: described('Saved records and the retry, replay, reconnect and upgrade rules.', {
      type: 'object',
      additionalProperties: false,
      properties: {
        saved: statement('What is saved, and with what.'),
        retry: statement('How a retry is treated.'),
        replay: statement('How a replay is treated.'),
        reconnect: statement('What a reconnect must re-establish.'),
        upgrade: statement('How a session moves to another version.'),
      },
    }),
    // Positive and negative examples, at least one of each: prose, or an example selection entry
    // ({ scope, settings, ... }; open, so an author can say why an invalid one is invalid).
    examples: described('Positive and negative examples, at least one of each.', {
      type: 'object',
      additionalProperties: false,
      required: ['valid', 'invalid'],
      properties: {
        valid: described('Valid uses: prose, or an example selection entry.', { type: 'array', minItems: 1, items: example }),
        invalid: described('Invalid uses and why: prose, or an example selection entry.', { type: 'array', minItems: 1, items: example }),
      },
    }),
    evidenceLimits: statement('The limits of the evidence: what the runtime cases do not show.'),
  },
})

export const MANIFEST_SHAPE = {
  type: 'object',
  additionalProperties: false,
  required: ['algorithm', 'files'],
  properties: {
    algorithm: { const: 'sha256' },
    files: { type: 'object', minProperties: 1, additionalProperties: { type: 'string', pattern: '^[0-9a-fA-F]{64}$' } },
  },
}

export interface ShapeProblem {
  pointer: string
  message: string
  /** The part the rules cannot read (left out of the readable view), or undefined when nothing is (a required member is missing: its absence is what the rules see). */
  prune?: string
}

// Created on first use: a process that never checks a DASP document never loads ajv for it. Keyed
// by the format's own shapes (constants of this module), never by a document: shared by every compile.
let shapeAjv: ReturnType<typeof createAjv> | undefined
const validators = new Map<object, import('ajv').ValidateFunction>()

/** Where `value` breaks `shape` and how, one problem per member (pointers at the member itself). */
export function shapeProblems(shape: object, value: unknown): ShapeProblem[] {
  let validate = validators.get(shape)
  if (!validate) validators.set(shape, (validate = (shapeAjv ??= createAjv({ allErrors: true })).compile(shape)))
  if (validate(value)) return []
  const seen = new Set<string>()
  const out: ShapeProblem[] = []
  for (const error of validate.errors ?? []) {
    // `if` only says that its `then` or `else` failed; their own errors say how.
    if (error.keyword === 'if') continue
    const member = (error.params as { additionalProperty?: string }).additionalProperty
    const missing = (error.params as { missingProperty?: string }).missingProperty
    const pointer = member !== undefined ? `${error.instancePath}/${escapeToken(member)}` : error.instancePath
    const message =
      member !== undefined
        ? `${JSON.stringify(member)} is not a member of this object; the shape is closed.`
        : missing !== undefined
          ? `${JSON.stringify(missing)} is required here.`
          : error.keyword === 'minLength'
            ? 'This must be stated: an empty string states nothing.'
            : error.keyword === 'const'
              ? `As a string, this can only be ${JSON.stringify((error.params as { allowedValue?: unknown }).allowedValue)}.`
              : `This ${error.message ?? 'breaks the shape'}.`
    const key = `${pointer}\u0000${message}`
    if (!seen.has(key)) {
      seen.add(key)
      out.push({ pointer, message, ...(missing === undefined ? { prune: pointer } : {}) })
    }
  }
  return out
}

/**
 * The document without the parts `prunes` points at, for the rules to read: an object member is
 * left out, an array element becomes `undefined` (so the other elements keep their indices and
 * pointers). The document itself is not changed; only the containers on a pruned path are copied.
 * The root (`''`) is never pruned: a document that is not an object is already unreadable to every rule.
 */
export function readableView(value: unknown, prunes: readonly string[]): unknown {
  if (prunes.length === 0 || typeof value !== 'object' || value === null) return value
  const made = new Set<object>()
  const copyOf = (container: object): any => {
    if (made.has(container)) return container
    const copy = Array.isArray(container) ? container.slice() : Object.defineProperties({}, Object.getOwnPropertyDescriptors(container))
    made.add(copy)
    return copy
  }
  const root = copyOf(value)
  for (const pointer of prunes) {
    const tokens = splitPointer(pointer)
    if (tokens.length === 0) continue
    let at: any = root
    for (let i = 0; i < tokens.length - 1 && at !== undefined; i++) {
      const next: unknown = Object.hasOwn(at, tokens[i]!) ? at[tokens[i]!] : undefined
      if (typeof next !== 'object' || next === null) at = undefined
      else {
        const copy = copyOf(next)
        Object.defineProperty(at, tokens[i]!, { value: copy, enumerable: true, writable: true, configurable: true })
        at = copy
      }
    }
    if (at === undefined) continue
    const last = tokens[tokens.length - 1]!
    if (Array.isArray(at)) at[Number(last)] = undefined
    else delete at[last]
  }
  return root
}
