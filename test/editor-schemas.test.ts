/**
 * The JSON Schemas for editors (schemas/, written by scripts/editor-schemas.ts from the checker's
 * own shapes) say what `contracts check` says about a document's shape:
 *
 * - they are what the script writes now, compile in ajv's strict mode, and the catalogue is in
 *   SchemaStore's format with every `url` a file of schemas/ (that `npm pack` ships each is
 *   test/pack.test.ts's, which packs once for the suite);
 * - on every contract under fixtures/, conformance/ and examples/, a document the checker finds no
 *   error in validates, and each shape error the checker reports has a schema error at the same
 *   JSON Pointer (and the other way round: a document the checker finds well-shaped validates);
 * - on a family made from each schema (a document with every member the schema names, then an
 *   unknown member planted in each object, each member given a wrong type, each member removed;
 *   the profile's imports and workflows varied in a copy of the shop bundle, relocked), the checker
 *   reports a shape error exactly where the schema reports one.
 *
 * "At the same pointer": an ajv error speaks about its `instancePath`, and about the member its
 * `additionalProperty` or `missingProperty` names (the checker points at that member, or, for a
 * missing DASP member, at its object).
 */
import { existsSync, readdirSync, readFileSync } from 'node:fs'
import { dirname, join, relative, resolve } from 'node:path'
import { fileURLToPath, pathToFileURL } from 'node:url'
import { Ajv } from 'ajv'
import { parse as parseYaml } from 'yaml'
import { describe, expect, it } from 'vitest'
import { ContractCompiler, formats, type Diagnostic } from '../src/index.js'
import { CORE_CODES } from '../src/core/codes.js'
import { editorSchemaFiles, editorSchemas, staleEditorSchemas } from '../scripts/editor-schemas.js'
import { applied, errorPointers, familyOf, pointerOf, sampleOf, type Json, type Schema, type Variant } from './helpers/schema-family.js'
import { ShopBundle } from './helpers/nats-bundle.js'
import { daspDiffer } from '../src/formats/dasp/diff/index.js'
import { side } from './dasp-diff-fixtures.js'

const root = join(import.meta.dirname, '..')
const schemasDir = join(root, 'schemas')
/**
 * Each file of schemas/ read once: the same object every time, so that ajv, which keeps what it
 * compiled by the schema object, compiles a schema or a member's subschema once for the whole file
 * (the families pick wrong values with `accepts` on every member's subschema). Nothing here changes them.
 */
const schemaFiles = new Map<string, Schema>()
const readSchema = (file: string): Schema => {
  let schema = schemaFiles.get(file)
  if (!schema) schemaFiles.set(file, (schema = JSON.parse(readFileSync(join(schemasDir, file), 'utf8')) as Schema))
  return schema
}

/**
 * Strict mode, with union types allowed: `type: ["object", "string"]` (a DASP pin, written either
 * way) is plain draft-07, which ajv's strict mode only asks to be acknowledged.
 * ajv's code optimizer is off: the same verdicts, for about a third less of its compile time.
 */
const ajv = new Ajv({ strict: true, allowUnionTypes: true, allErrors: true, code: { optimize: false } })
const validators = new Map<string, ReturnType<typeof ajv.compile>>()
const validatorOf = (file: string) => {
  let validate = validators.get(file)
  if (!validate) validators.set(file, (validate = ajv.compile(readSchema(file))))
  return validate
}
const accepts = (schema: Schema, value: unknown) => ajv.validate(schema, value) as boolean

/** Which schema a file is for, and the codes with which the checker reports its shape errors. */
interface Kind {
  schema: string
  codes: readonly string[]
}
const BENZENE: Kind = { schema: 'benzene-spec.schema.json', codes: ['BENZENE_MISSING_MEMBER', 'BENZENE_WRONG_TYPE'] }
const NATS: Kind = { schema: 'asyncapi-nats.schema.json', codes: ['NATS_PROFILE_SHAPE', 'NATS_PROFILE_UNSUPPORTED'] }
const DASP: Kind = { schema: 'dasp.schema.json', codes: ['DASP_SHAPE'] }
const DASP_EXT: Kind = { schema: 'dasp-ext.schema.json', codes: ['DASP_DEFINITION_SHAPE'] }

function kindOf(file: string): Kind | undefined {
  if (file.endsWith('.spec.json')) return BENZENE
  if (file.endsWith('.dasp.json')) return DASP
  if (file.endsWith('.dasp-ext.json')) return DASP_EXT
  if (/(^|\/)(asyncapi\.(yaml|json)|[^/]*\.asyncapi\.(ya?ml|json))$/.test(file)) return NATS
  return undefined
}

/** Every file under `dir` (sorted), leaving out what a build or a tool wrote there; links not followed. */
function files(dir: string): string[] {
  return readdirSync(dir, { withFileTypes: true })
    .sort((a, b) => (a.name < b.name ? -1 : 1))
    .flatMap((e) =>
      e.name === 'node_modules' || e.name.startsWith('dist') ? [] : e.isDirectory() ? files(join(dir, e.name)) : e.isFile() ? [join(dir, e.name)] : [],
    )
}

/** The document as its format reads it, or undefined when it is not JSON/YAML at all (the checker says so with its own codes). */
function documentOf(file: string): unknown {
  try {
    const text = readFileSync(file, 'utf8')
    return file.endsWith('.json') ? JSON.parse(text) : parseYaml(text, { uniqueKeys: true })
  } catch {
    return undefined
  }
}

interface Verdict {
  file: string
  kind: Kind
  /** Whether the checker found any error in this file. */
  errors: boolean
  /** Whether the checker could not read it (a core code: syntax, a limit, ...): then no rule judged its shape. */
  unread: boolean
  /** The pointers of the checker's shape errors in this file. */
  shape: Set<string>
}

/** What the file's schema says about a verdict's file: whether it validates, the errors, and the pointers they name. */
interface SchemaVerdict {
  valid: boolean
  errors: string
  named: Set<string>
}

/** The schema's verdict on each checked file, made once: both tests below read it. */
const schemaVerdicts = new Map<string, SchemaVerdict>()
function schemaVerdictOf(v: Verdict): SchemaVerdict {
  let verdict = schemaVerdicts.get(v.file)
  if (!verdict) {
    const validate = validatorOf(v.kind.schema)
    const valid = validate(documentOf(v.file)) as boolean
    schemaVerdicts.set(v.file, (verdict = { valid, errors: JSON.stringify(validate.errors), named: errorPointers(validate.errors) }))
  }
  return verdict
}

/**
 * Each contract a format claims checked once (a DASP selection with its definitions); each
 * definition's verdict is what the selections reading it reported in it. The sets are not empty.
 * Checked as `contracts inspect` checks (every stage `contracts check` runs but the module's
 * generation, which reports nothing but a bug of its own): the same diagnostics on every contract
 * here, at about half the processor time.
 */
async function verdicts(): Promise<Verdict[]> {
  const contracts = ['fixtures', 'conformance', 'examples'].flatMap((dir) => files(join(root, dir)))
  const out = new Map<string, Verdict>()
  const verdictOf = (file: string, kind: Kind) => {
    let v = out.get(file)
    if (!v) out.set(file, (v = { file, kind, errors: false, unread: false, shape: new Set() }))
    return v
  }
  for (const file of contracts) {
    if (!formats.some((format) => format.match(file))) continue
    const kind = kindOf(file)
    if (!kind) continue
    const diagnostics: Diagnostic[] = (await new ContractCompiler().inspect(file)).diagnostics
    verdictOf(file, kind)
    if (kind === DASP) {
      // The definitions this selection reads are judged here too, each in its own file.
      const selection = documentOf(file) as { definitions?: unknown } | undefined
      for (const entry of Array.isArray(selection?.definitions) ? selection.definitions : []) {
        const path = typeof entry === 'string' ? resolve(dirname(file), entry) : ''
        if (path.endsWith('.dasp-ext.json') && existsSync(path)) verdictOf(path, DASP_EXT)
      }
    }
    for (const d of diagnostics) {
      const v = out.get(d.file)
      if (!v) continue
      if (d.severity === 'error') v.errors = true
      if (Object.hasOwn(CORE_CODES, d.code)) v.unread = true
      if (v.kind.codes.includes(d.code)) v.shape.add(d.pointer)
    }
  }
  return [...out.values()]
}

/** The verdicts, computed once when a test first needs them (about half a minute: every contract compiled). */
let verdictsMade: Promise<Verdict[]> | undefined
const checked = () => (verdictsMade ??= verdicts())

describe('the editor schemas', () => {
  it('are what scripts/editor-schemas.ts writes (run npm run schemas after changing a shape)', () => {
    expect(staleEditorSchemas()).toEqual([])
    expect([...editorSchemaFiles().keys()].sort()).toEqual(readdirSync(schemasDir).sort())
  })

  it.each(editorSchemas().map((s) => s.file))('%s is a draft-07 schema that compiles in ajv strict mode', (file) => {
    const schema = readSchema(file)
    expect(schema.$schema).toBe('http://json-schema.org/draft-07/schema#')
    expect(ajv.validateSchema(schema)).toBe(true)
    expect(typeof validatorOf(file)).toBe('function')
  })

  // That npm pack ships each of them and the catalogue is test/pack.test.ts's (one `npm pack --dry-run` for the suite).
  it("the catalogue has SchemaStore's shape, and each url is a schema of schemas/, which the package exports", () => {
    // SchemaStore's catalogue format (https://json.schemastore.org/schema-catalog.json), the part a client reads.
    const catalogueShape = {
      type: 'object',
      required: ['$schema', 'version', 'schemas'],
      properties: {
        $schema: { const: 'https://json.schemastore.org/schema-catalog.json' },
        version: { const: 1 },
        schemas: {
          type: 'array',
          items: {
            type: 'object',
            additionalProperties: false,
            required: ['name', 'description', 'url'],
            properties: {
              name: { type: 'string', minLength: 1 },
              description: { type: 'string', minLength: 1 },
              fileMatch: { type: 'array', minItems: 1, items: { type: 'string', minLength: 1 } },
              url: { type: 'string', minLength: 1 },
              versions: { type: 'object', additionalProperties: { type: 'string' } },
            },
          },
        },
      },
    }
    const catalogue = readSchema('catalog.json')
    expect(accepts(catalogueShape, catalogue), JSON.stringify(ajv.errors)).toBe(true)
    const base = pathToFileURL(join(schemasDir, 'catalog.json'))
    const urls = (catalogue.schemas as Array<{ url: string }>).map((s) => relative(root, fileURLToPath(new URL(s.url, base))))
    expect(urls.sort()).toEqual(
      editorSchemas()
        .map((s) => `schemas/${s.file}`)
        .sort(),
    )
    for (const url of urls) expect(existsSync(join(root, url)), url).toBe(true)
    const pkg = JSON.parse(readFileSync(join(root, 'package.json'), 'utf8'))
    expect(pkg.exports['./schemas/*']).toBe('./schemas/*')
    expect(pkg.files).toContain('schemas')
  })

  it('every property of every published schema has a description (the hover text), written with the shape it describes', () => {
    /** The pointer of every property in `schema` (through properties, items, additionalProperties, anyOf, if/then/else) without a non-empty description. */
    const undescribed = (schema: unknown, at: string): string[] => {
      if (typeof schema !== 'object' || schema === null) return []
      const node = schema as Record<string, unknown>
      const out: string[] = []
      for (const [name, member] of Object.entries((node.properties ?? {}) as Record<string, Record<string, unknown>>)) {
        const description = member.description
        if (typeof description !== 'string' || description.trim().length < 8) out.push(`${at}/properties/${name}`)
        out.push(...undescribed(member, `${at}/properties/${name}`))
      }
      for (const key of ['items', 'additionalProperties', 'if', 'then', 'else'] as const) out.push(...undescribed(node[key], `${at}/${key}`))
      for (const [i, branch] of ((node.anyOf ?? []) as unknown[]).entries()) out.push(...undescribed(branch, `${at}/anyOf/${i}`))
      return out
    }
    let properties = 0
    for (const { file } of editorSchemas()) {
      const schema = readSchema(file)
      properties += JSON.stringify(schema).split('"properties"').length - 1
      expect(undescribed(schema, ''), file).toEqual([])
    }
    expect(properties).toBeGreaterThan(50)
  })

  it('each catalogue entry matches the files its format claims', () => {
    for (const { fileMatch, file } of editorSchemas()) {
      for (const pattern of fileMatch) {
        const example = pattern.replace('*', 'orders')
        expect(kindOf(example)?.schema, `${file}: ${pattern}`).toBe(file)
        if (file !== DASP_EXT.schema)
          expect(
            formats.some((format) => format.match(join(root, 'fixtures', example))),
            example,
          ).toBe(true)
      }
    }
  })
})

describe('docs/editors.md', () => {
  const doc = readFileSync(join(root, 'docs/editors.md'), 'utf8')

  it('names only shipped schemas, and its VS Code settings give each schema the files the catalogue does', () => {
    const named = [...doc.matchAll(/node_modules\/unplugin-contracts\/schemas\/([\w.-]+)/g)].map((m) => m[1]!)
    expect(named.length).toBeGreaterThan(0)
    for (const file of named) expect(editorSchemaFiles().has(file), file).toBe(true)
    const block = /### VS Code settings[\s\S]*?```\n([\s\S]*?)```/.exec(doc)![1]!
    const settings = JSON.parse(block) as { 'json.schemas': Array<{ fileMatch: string[]; url: string }>; 'yaml.schemas': Record<string, string[]> }
    const given = new Map<string, string[]>()
    const add = (url: string, patterns: string[]) => given.set(url.split('/').at(-1)!, [...(given.get(url.split('/').at(-1)!) ?? []), ...patterns])
    for (const { url, fileMatch } of settings['json.schemas']) add(url, fileMatch)
    for (const [url, patterns] of Object.entries(settings['yaml.schemas'])) add(url, patterns)
    for (const { file, fileMatch } of editorSchemas()) expect(given.get(file)?.sort(), file).toEqual([...fileMatch].sort())
  })

  it('the modeline it shows is a comment the build ignores', async () => {
    const modeline = /^# yaml-language-server: \$schema=\S+$/m.exec(doc)![0]
    const file = join(root, 'fixtures/nats/valid/ledger.asyncapi.yaml')
    const text = `${modeline}\n${readFileSync(file, 'utf8')}`
    const { diagnostics, code } = await new ContractCompiler({ overlay: { text: (path) => (path === file ? text : undefined) } }).compile(file)
    expect(diagnostics).toEqual([])
    expect(code).toBeTypeOf('string')
  })

  it('a "$schema" member: the build accepts it in Benzene and DASP documents (same diagnostics; the same DASP module), and refuses it at an AsyncAPI root', async () => {
    const benzene = join(root, 'fixtures/benzene/valid/payments.spec.json')
    const selection = join(root, 'fixtures/dasp/counter.dasp.json')
    const definition = join(root, 'fixtures/dasp/extensions/proof-of-authority.dasp-ext.json')
    const asyncapi = join(root, 'conformance/nats/subjects.asyncapi.json')
    const read = (file: string) => JSON.parse(readFileSync(file, 'utf8'))
    const withSchema = (file: string, $schema: unknown = '../node_modules/unplugin-contracts/schemas/x.schema.json') => ({ $schema, ...read(file) })
    /** The codes and pointers of compiling `main` with `file` read as `value`, and the module. */
    const compiled = async (main: string, file: string, value: unknown) => {
      const result = await new ContractCompiler({ overlay: { text: (path) => (path === file ? JSON.stringify(value) : undefined) } }).compile(main)
      return { codes: result.diagnostics.map((d) => `${d.code} ${relative(root, d.file)} ${d.pointer}`), code: result.code, dts: result.dts }
    }
    const same = async (main: string, file: string) => {
      const plain = await compiled(main, file, read(file))
      expect(plain.code, relative(root, file)).toBeTypeOf('string')
      expect(await compiled(main, file, withSchema(file)), relative(root, file)).toEqual(plain)
    }
    // Benzene's contract hash is over the document as the Benzene Contract Document normalizes it
    // (§6.2: unknown members kept), so that every port computes it alike: a "$schema" member is in
    // it, and nothing else of the module changes.
    const hashless = (text: string | undefined) => text?.replace(/sha256:[0-9a-f]{64}/g, 'sha256:…')
    const plain = await compiled(benzene, benzene, read(benzene))
    const marked = await compiled(benzene, benzene, withSchema(benzene))
    expect(marked.codes).toEqual(plain.codes)
    expect(hashless(marked.code)).toEqual(hashless(plain.code))
    expect(marked.code).not.toEqual(plain.code)
    expect(validatorOf(BENZENE.schema)(withSchema(benzene))).toBe(true)
    await same(selection, selection)
    expect(validatorOf(DASP.schema)(withSchema(selection))).toBe(true)
    await same(selection, definition)
    expect(validatorOf(DASP_EXT.schema)(withSchema(definition))).toBe(true)
    // A string: a name the editor resolves; anything else is still malformed, in both.
    expect((await compiled(selection, selection, withSchema(selection, 7))).codes).toContain('DASP_SHAPE fixtures/dasp/counter.dasp.json /$schema')
    expect(validatorOf(DASP.schema)(withSchema(selection, 7))).toBe(false)
    expect((await compiled(selection, definition, withSchema(definition, {}))).codes).toContain(
      'DASP_DEFINITION_SHAPE fixtures/dasp/extensions/proof-of-authority.dasp-ext.json /$schema',
    )
    expect(validatorOf(DASP_EXT.schema)(withSchema(definition, {}))).toBe(false)
    // AsyncAPI's own schema closes its root to what AsyncAPI defines and `x-` members: the modeline is the way there.
    expect((await compiled(asyncapi, asyncapi, withSchema(asyncapi))).codes).toContain('NATS_ASYNCAPI_SCHEMA conformance/nats/subjects.asyncapi.json /$schema')
  })

  it('a "$schema" member added to a definition under the same pin is no change to it (diff)', async () => {
    const selection = join(root, 'fixtures/dasp/counter.dasp.json')
    const definition = join(root, 'fixtures/dasp/extensions/proof-of-authority.dasp-ext.json')
    const text = readFileSync(definition, 'utf8')
    const edited = text.replace('{', '{\n  "$schema": "../../node_modules/unplugin-contracts/schemas/dasp-ext.schema.json",')
    expect(JSON.parse(edited).$schema).toBeTypeOf('string')
    const a = await side(selection)
    expect(await daspDiffer.diff(a, { ...a, read: async (file) => (file === definition ? edited : a.read(file)) })).toEqual([])
    // The same edit to a member that states something is a change in place.
    const stated = text.replace('"evidenceLimits": "', '"evidenceLimits": "Also: ')
    const findings = await daspDiffer.diff(a, { ...a, read: async (file) => (file === definition ? stated : a.read(file)) })
    expect(findings.map((f) => f.rule)).toContain('dasp-definition-changed-in-place')
  })
})

describe('the editor schemas and contracts check, on every contract of the repository', () => {
  it('a document the checker finds no error in validates, of each kind', async () => {
    const valid = (await checked()).filter((v) => !v.errors)
    for (const kind of [BENZENE, NATS, DASP, DASP_EXT]) expect(valid.filter((v) => v.kind === kind).length, kind.schema).toBeGreaterThan(0)
    for (const v of valid) {
      const { valid: validates, errors } = schemaVerdictOf(v)
      expect(validates, `${relative(root, v.file)}: ${errors}`).toBe(true)
    }
  })

  it('each shape error the checker reports is a schema error at the same pointer, and a well-shaped document validates', async () => {
    const read = (await checked()).filter((v) => !v.unread)
    const malformed = read.filter((v) => v.shape.size > 0)
    for (const kind of [BENZENE, NATS, DASP, DASP_EXT]) expect(malformed.filter((v) => v.kind === kind).length, kind.schema).toBeGreaterThan(0)
    for (const v of read) {
      const { valid, named } = schemaVerdictOf(v)
      expect(valid, `${relative(root, v.file)}: the schema ${valid ? 'accepts' : 'refuses'} it, the checker's shape errors: ${[...v.shape]}`).toBe(
        v.shape.size === 0,
      )
      for (const pointer of v.shape) expect([...named], `${relative(root, v.file)} at ${pointer}`).toContain(pointer)
    }
  })
})

/** The checker's shape-error pointers on one document of a family, in the file the variant is in. */
type Check = (variant: Variant) => Promise<string[]>

/**
 * Each variant: the schema refuses it, naming one of the variant's pointers, exactly when the
 * checker reports a shape error at one of them, and every pointer the checker names there the
 * schema names too. Both verdicts occur (the family is not all malformed, nor all well-shaped).
 */
async function holdsFamily(schemaFile: string, doc: unknown, variants: Variant[], check: Check): Promise<void> {
  const validate = validatorOf(schemaFile)
  expect(validate(doc), JSON.stringify(validate.errors)).toBe(true)
  const verdicts = new Set<boolean>()
  for (const variant of variants) {
    const label = `${schemaFile}: ${variant.what} ${JSON.stringify(variant.member)} in ${variant.parent || 'the document'}`
    validate(applied(doc, variant))
    const named = errorPointers(validate.errors)
    const reported = await check(variant)
    const byChecker = variant.names.filter((p) => reported.includes(p))
    const bySchema = variant.names.filter((p) => named.has(p))
    expect(bySchema.length > 0, `${label}: the schema names ${JSON.stringify(bySchema)}, the checker reported ${JSON.stringify(reported)}`).toBe(
      byChecker.length > 0,
    )
    for (const pointer of byChecker) expect(bySchema, label).toContain(pointer)
    verdicts.add(byChecker.length > 0)
  }
  expect([...verdicts].sort()).toEqual([false, true])
}

/**
 * Checks documents given as text, none of them on disk (the compiler's overlay). One compiler for
 * a family, as an editor's language server keeps one while the text changes: each variant is a
 * recompile of the same file, and the compiler's memos answer what did not change (the cache checks
 * every text it read, so no variant is answered with another's result).
 */
function textChecker(): (main: string, texts: Map<string, unknown>, codes: readonly string[], inFile: string) => Promise<string[]> {
  let text = new Map<string, string>()
  const compiler = new ContractCompiler({ overlay: { text: (path) => text.get(path) } })
  return async (main, texts, codes, inFile) => {
    text = new Map([...texts].map(([file, value]) => [file, JSON.stringify(value, null, 2)]))
    const { diagnostics } = await compiler.compile(main, { declarations: false })
    return diagnostics.filter((d) => codes.includes(d.code) && d.file === inFile).map((d) => d.pointer)
  }
}

describe('the editor schemas and contracts check, on a family made from each schema', () => {
  it('Benzene: an unknown member in each object, a wrong type at each member, each member removed', async () => {
    const file = join(root, 'fixtures/benzene/valid/family.spec.json')
    const doc = sampleOf(readSchema(BENZENE.schema))
    const variants = familyOf(readSchema(BENZENE.schema), doc, accepts)
    const checkTexts = textChecker()
    await holdsFamily(BENZENE.schema, doc, variants, (v) => checkTexts(file, new Map([[file, applied(doc, v)]]), BENZENE.codes, file))
  })

  it('x-nats-contract: an unknown member in each object, a wrong type at each member, each member removed', async () => {
    const file = join(root, 'fixtures/nats/valid/family.asyncapi.json')
    const schema = readSchema(NATS.schema)
    const doc = sampleOf(schema) as Record<string, any>
    const profile = doc['x-nats-contract']
    // A document of its own: imports and workflow artifacts name other files, which only a locked
    // bundle may (the next test varies them in the shop bundle). The version is the one this
    // compiler reads; any other stops the check at NATS_PROFILE_VERSION, at the same pointer.
    delete profile.imports
    delete profile.workflows
    profile.version = '0.2.0-draft'
    Object.assign(doc, { asyncapi: '3.1.0', info: { title: 'Family', version: '1.0.0' } })
    // The family of the profile: the document around it is plain AsyncAPI, which this schema leaves open.
    const variants = familyOf(schema, doc, accepts).filter((v) => v.parent.startsWith('/x-nats-contract'))
    const codes = [...NATS.codes, 'NATS_PROFILE_VERSION']
    const checkTexts = textChecker()
    await holdsFamily(NATS.schema, doc, variants, (v) => checkTexts(file, new Map([[file, applied(doc, v)]]), codes, file))
  })

  it('x-nats-contract in a bundle: imports and workflows, varied in the shop bundle and relocked', async () => {
    const bundle = ShopBundle.copy('editor-schemas')
    const rel = 'payments/asyncapi/asyncapi.yaml'
    const doc = parseYaml(bundle.read(rel)) as Json
    const variants = familyOf(readSchema(NATS.schema), doc, accepts).filter((v) =>
      /^\/x-nats-contract\/(imports|workflows)(\/|$)/.test(pointerOf(v.parent, v.member)),
    )
    expect(variants.map((v) => v.parent)).toEqual(expect.arrayContaining(['/x-nats-contract/imports/orders', '/x-nats-contract/workflows/refundFlow']))
    const codes = [...NATS.codes, 'NATS_PROFILE_VERSION']
    // One compiler, as a watch build keeps one: it reads each file again when its digest changed.
    const compiler = new ContractCompiler()
    await holdsFamily(NATS.schema, doc, variants, async (v) => {
      // JSON is YAML: the document written as JSON, then every digest that vouches for it made anew.
      bundle.write(rel, JSON.stringify(applied(doc, v), null, 2)).relock()
      const { diagnostics } = await compiler.compile(bundle.doc('payments'), { declarations: false })
      return diagnostics.filter((d) => codes.includes(d.code) && d.file === bundle.doc('payments')).map((d) => d.pointer)
    })
  })

  it('DASP: the selection and a definition it reads, each varied', async () => {
    const selectionFile = join(root, 'fixtures/dasp/family.dasp.json')
    const definitionFile = join(root, 'fixtures/dasp/family.dasp-ext.json')
    const selection = { ...(sampleOf(readSchema(DASP.schema)) as object), definitions: ['family.dasp-ext.json'] }
    const definition = sampleOf(readSchema(DASP_EXT.schema))
    const checkTexts = textChecker()
    await holdsFamily(DASP.schema, selection, familyOf(readSchema(DASP.schema), selection, accepts), (v) =>
      checkTexts(
        selectionFile,
        new Map([
          [selectionFile, applied(selection, v)],
          [definitionFile, definition],
        ]),
        DASP.codes,
        selectionFile,
      ),
    )
    await holdsFamily(DASP_EXT.schema, definition, familyOf(readSchema(DASP_EXT.schema), definition, accepts), (v) =>
      checkTexts(
        selectionFile,
        new Map([
          [selectionFile, selection],
          [definitionFile, applied(definition, v)],
        ]),
        DASP_EXT.codes,
        definitionFile,
      ),
    )
  })
})
