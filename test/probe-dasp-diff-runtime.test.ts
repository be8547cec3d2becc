// Outside differential test of `contracts diff old.dasp.json new.dasp.json --json` for DASP selections.
//
// Only the built package is used: dist/cli.js (the `contracts` bin), `ContractCompiler` from the
// package root, `checkSessionFloor` from unplugin-contracts/runtime/dasp, and the modules the
// compiler generates (selectionRequest, sessionFloor, isExactSelection, checkPlacement), loaded by
// Node itself (require of an ES module) with their runtime import pointed at the built runtime.
//
// Each pair (old, new) is one small edit of a realistic selection with four extension definitions
// (git-commit pins, `supports.profiles: "any"`). Reality per audience (docs/dasp.md, "Comparing two
// versions"):
//   client        an OLD client's request reaches a host built from the NEW selection;
//                 a NEW host's events reach the old client;
//   host          a NEW client's request reaches a host still built from the OLD selection;
//                 an OLD host's events reach the new client;
//   saved-session the OLD module's sessionFloor (JSON round trip) against the NEW module's
//                 selectionRequest through the runtime's checkSessionFloor (docs: for what a request
//                 carries, "saved-session is reported exactly when the runtime refuses the old version's
//                 sessionFloor against the new version's request"), and saved events (events that carry saved-class attributes)
//                 re-checked by the new module's checkPlacement.
// The host model (H_sel, the docs' reading: "clients and hosts ... confirm the exact complete
// selection", DASP-EXT-004): a host built from selection X serves X's core/profile/binding and the
// extensions X requests (identity and scope); it validates a request with X's definitions and X's
// policy (the package's own checker: the request rewritten as a selection beside X's definitions and
// compiled), and confirms X's entries (its pins, dependencies and setting values: "the host selects
// only permitted shared values"); the requesting client's generated `isExactSelection` decides.
// A second model (H_support, the spec's weakest reading: the host confirms the request as its
// definitions read it) is recorded for the report, not asserted.
// Definition edits are also probed with sample requests (one setting value, or the scope, changed):
// a value the old definition accepts and the new refuses breaks clients, the reverse hosts
// (dasp-setting-narrowed / -widened's own reading).
//
// The diff: every pair through one `contracts diff --against HEAD --json` (a git repository holding all
// pairs, old versions committed); a few pairs also through `contracts diff old.dasp.json new.dasp.json
// --json`, which must agree (g) and is then the answer judged (PROBE_TWO_FILE=all: every pair).
// Tests: harness, (a) soundness, (a2) soundness of the rules without the generic in-place warning,
// (b) witnesses, (c) completeness on plain pairs, (d) equivalent rewrites, (e) locations,
// (f) saved-session exactness against checkSessionFloor (a docs promise), (g) the two forms agree,
// (h) precision on audiences that provably cannot break.
// Written apart from the code, from the docs and the specification only (an outside pass), and kept
// in the suite as a differential test: its first run found an optional saved attribute's type change
// missing saved sessions, a newly supported scope called info, audiences that cannot break named, a
// reordered enum called an in-place change, and pins compared by hex case in the checker.
// PROBE_DEBUG=1 keeps the temp folder and writes test/.tmp/dasp-diff-runtime.json.
import { execFileSync, spawn } from 'node:child_process'
import { mkdirSync, mkdtempSync, rmSync, writeFileSync } from 'node:fs'
import { createRequire } from 'node:module'
import { tmpdir } from 'node:os'
import { dirname, join, resolve } from 'node:path'
import { fileURLToPath, pathToFileURL } from 'node:url'
import { afterAll, beforeAll, describe, expect, it } from 'vitest'

/** A check that applies to this pair: registered only then, never as a skipped test. */
const itWhen = (applies: boolean): ((name: string, test: () => unknown) => void) => (applies ? (name, test) => it(name, test) : () => undefined)

const HERE = dirname(fileURLToPath(import.meta.url))
const CLI = resolve(HERE, '../dist/cli.js')
const nodeRequire = createRequire(import.meta.url)
const { ContractCompiler } = nodeRequire('unplugin-contracts') as any
const RUNTIME_PATH = nodeRequire.resolve('unplugin-contracts/runtime/dasp')
const runtime = nodeRequire('unplugin-contracts/runtime/dasp') as any
const DEBUG = process.env.PROBE_DEBUG === '1'

type J = any
const clone = <T>(x: T): T => JSON.parse(JSON.stringify(x))
const canon = (x: unknown): string =>
  x === null || typeof x !== 'object'
    ? JSON.stringify(x)
    : Array.isArray(x)
      ? `[${x.map(canon).join(',')}]`
      : `{${Object.keys(x as object)
          .sort()
          .map((k) => `${JSON.stringify(k)}:${canon((x as any)[k])}`)
          .join(',')}}`

// ---------------------------------------------------------------------------------------------
// Documents
// ---------------------------------------------------------------------------------------------
const pin = (repository: string, commit: string) => ({ kind: 'git-commit', repository, commit })
const CORE = {
  uri: 'https://dasp-protocol.github.io/dasp/contracts/core',
  version: 'draft-01',
  content: pin('https://github.com/DASP-Protocol/dasp', '3f2a9c0d1e4b5a6978c0d1e2f3a4b5c6d7e8f901'),
}
const PROFILE = {
  uri: 'urn:example:dasp:counter',
  version: '1',
  content: pin('https://example.com/profiles/counter', 'a1b2c3d4e5f60718293a4b5c6d7e8f9012345678'),
}
const BINDING = {
  uri: 'urn:example:dasp:binding:wss',
  version: 'draft-01',
  content: pin('https://example.com/bindings/wss', '0123456789abcdef0123456789abcdef01234567'),
}
const ENC = 'urn:example:ext:enc'
const AUTH = 'urn:example:ext:auth'
const AUDIT = 'urn:example:ext:audit'
const TRACE = 'urn:example:ext:trace'
const CMD = 'dasp.v1.command'
const READ = 'dasp.v1.read'
const EVENT = 'dasp.v1.event'

function definition(o: {
  uri: string
  version: string
  commit: string
  scopes: string[]
  operations: string[]
  dependencies: J[]
  settings: J
  attributes: J[]
}): J {
  return {
    identity: { uri: o.uri, version: o.version },
    status: 'draft',
    content: pin(`https://example.com/contracts/${o.uri.split(':').pop()}`, o.commit),
    supports: { core: [clone(CORE)], profiles: 'any', bindings: [clone(BINDING)] },
    dependencies: o.dependencies,
    processing: 'Authenticate and decrypt first, then validate evidence, then look up saved retries, then admit.',
    records: {
      saved: 'Saved with the session before the first session.opened.',
      retry: 'Equal retries keep their saved identity.',
      replay: 'Replay keeps original saved attributes.',
      reconnect: 'A reconnect must meet the saved floor.',
      upgrade: 'A new version never replaces the saved one silently.',
    },
    examples: { valid: ['a selection of this extension'], invalid: ['a request without the content pin'] },
    evidenceLimits: 'The checks show the selection is exact; they do not show runtime protection.',
    scopes: o.scopes,
    ...(o.scopes.length > 1 ? { scopeRelations: 'Selected for the connection, it establishes a lasting session requirement.' } : {}),
    operations: o.operations,
    settings: o.settings,
    attributes: o.attributes,
  }
}
const hex = (s: string) => s.repeat(40 / s.length)
const DEF_PATH: Record<string, string> = {
  [ENC]: 'extensions/enc.dasp-ext.json',
  [AUTH]: 'extensions/auth.dasp-ext.json',
  [AUDIT]: 'extensions/audit.dasp-ext.json',
  [TRACE]: 'extensions/trace.dasp-ext.json',
}
const encDef = () =>
  definition({
    uri: ENC,
    version: '1',
    commit: hex('e1'),
    scopes: ['connection', 'session'],
    operations: [CMD, READ, EVENT],
    dependencies: [],
    settings: {
      cipher: { type: 'enum', values: ['xchacha20poly1305', 'aes256gcm'], persistence: 'session' },
      rekey_interval_s: { type: 'integer', unit: 'seconds', minimum: 60, maximum: 86400, persistence: 'connection' },
    },
    attributes: [],
  })
const authDef = () =>
  definition({
    uri: AUTH,
    version: '1',
    commit: hex('a1'),
    scopes: ['session', 'command'],
    operations: [CMD],
    dependencies: [],
    settings: {
      grant_bytes: { type: 'integer', unit: 'bytes', minimum: 1, maximum: 16384, persistence: 'session' },
      commands: {
        type: 'array',
        minItems: 1,
        maxItems: 64,
        uniqueBy: 'name',
        persistence: 'session',
        items: {
          type: 'object',
          required: ['name', 'kind'],
          additionalProperties: false,
          properties: { name: { type: 'string' }, kind: { enum: ['standing', 'command'] } },
        },
      },
    },
    attributes: [{ name: 'exauth', type: 'String', on: [CMD], required: true, class: 'delivery' }],
  })
const auditDef = () =>
  definition({
    uri: AUDIT,
    version: '1',
    commit: hex('b2'),
    scopes: ['session'],
    operations: [CMD, EVENT],
    dependencies: [{ uri: AUTH, version: '1', scope: 'session' }],
    settings: {
      retention_days: { type: 'integer', unit: 'days', minimum: 1, maximum: 3650, persistence: 'session' },
      redact: { type: 'boolean', persistence: 'connection' },
    },
    attributes: [
      { name: 'exaudit', type: 'String', on: [CMD], required: true, class: 'saved' },
      { name: 'exseq', type: 'Integer', on: [EVENT], required: false, class: 'saved' },
    ],
  })
const traceDef = () =>
  definition({
    uri: TRACE,
    version: '1',
    commit: hex('c3'),
    scopes: ['connection'],
    operations: [CMD, READ],
    dependencies: [],
    settings: { sample_rate: { type: 'integer', unit: 'percent', minimum: 0, maximum: 100, persistence: 'connection' } },
    attributes: [{ name: 'extrace', type: 'String', on: [CMD, READ], required: false, class: 'delivery' }],
  })

interface Version {
  app: J
  files: Record<string, J>
  raw?: Record<string, string>
}
function base(): Version {
  return {
    app: {
      dasp: 'draft-01',
      core: clone(CORE),
      profile: clone(PROFILE),
      binding: clone(BINDING),
      definitions: [DEF_PATH[ENC], DEF_PATH[AUTH], DEF_PATH[AUDIT]],
      extensions: [
        { uri: ENC, version: '1', scope: 'connection', settings: { cipher: 'xchacha20poly1305', rekey_interval_s: 3600 } },
        {
          uri: AUTH,
          version: '1',
          scope: 'session',
          settings: {
            grant_bytes: 16384,
            commands: [
              { name: 'counter.add', kind: 'standing' },
              { name: 'counter.reset', kind: 'command' },
            ],
          },
        },
        { uri: AUDIT, version: '1', scope: 'session', settings: { retention_days: 30, redact: true } },
      ],
      policy: { requires: [{ uri: ENC, version: '1' }] },
    },
    files: { [DEF_PATH[ENC]]: encDef(), [DEF_PATH[AUTH]]: authDef(), [DEF_PATH[AUDIT]]: auditDef() },
  }
}
const req = (v: Version, uri: string) => v.app.extensions.find((e: J) => e.uri === uri)
const def = (v: Version, uri: string) => v.files[DEF_PATH[uri]]
function addTrace(v: Version) {
  v.files[DEF_PATH[TRACE]] = traceDef()
  v.app.definitions.push(DEF_PATH[TRACE])
  v.app.extensions.push({ uri: TRACE, version: '1', scope: 'connection', settings: { sample_rate: 10 } })
}

// ---------------------------------------------------------------------------------------------
// Pairs: one edit each. `real` is the harness's expectation of reality (H_sel + samples), checked
// first so that a harness mistake is not read as a differ defect. `loc`: the rule whose finding must
// point at the changed node, with the pointers accepted in each version (the node, or for a member one
// version lacks, its enclosing node).
// ---------------------------------------------------------------------------------------------
type Aud = 'client' | 'host' | 'saved-session'
interface Pair {
  id: string
  edit: (v: Version) => void
  kind: 'plain' | 'equiv' | 'def' | 'other'
  real?: Aud[]
  loc?: { rule: string; old: [string, ...string[]]; new: [string, ...string[]] }
  probeScopes?: string
  /** Audiences no request or event can break here (each argued at the pair): the rules must not call them broken. */
  notBroken?: Aud[]
  /** Applied to both versions before `edit`. */
  both?: (v: Version) => void
}
const APP = 'app.dasp.json'
const PAIRS: Pair[] = [
  // --- the selection ---
  {
    id: 'ext-added',
    kind: 'plain',
    real: ['host'],
    edit: addTrace,
    loc: { rule: 'dasp-extension-added', old: [APP, '/extensions'], new: [APP, '/extensions/3'] },
  },
  {
    id: 'ext-removed',
    kind: 'plain',
    real: ['client', 'saved-session'],
    edit: (v) => {
      v.app.extensions.splice(2, 1)
      v.app.definitions.splice(2, 1)
      delete v.files[DEF_PATH[AUDIT]]
    },
    loc: { rule: 'dasp-extension-removed', old: [APP, '/extensions/2'], new: [APP, '/extensions'] },
  },
  {
    id: 'ext-unrequested-def-kept',
    kind: 'plain',
    real: ['client', 'saved-session'],
    edit: (v) => {
      v.app.extensions.splice(2, 1)
    },
    loc: { rule: 'dasp-extension-removed', old: [APP, '/extensions/2'], new: [APP, '/extensions'] },
  },
  {
    id: 'ext-version-changed',
    kind: 'plain',
    real: ['client', 'host', 'saved-session'],
    edit: (v) => {
      req(v, AUDIT).version = '2'
      const d = def(v, AUDIT)
      d.identity.version = '2'
      d.content.commit = hex('b3')
    },
    loc: { rule: 'dasp-extension-version-changed', old: [APP, '/extensions/2/version', '/extensions/2'], new: [APP, '/extensions/2/version', '/extensions/2'] },
  },
  {
    id: 'ext-scope-changed',
    kind: 'plain',
    real: ['client', 'host', 'saved-session'],
    edit: (v) => {
      req(v, ENC).scope = 'session'
    },
    loc: { rule: 'dasp-extension-scope-changed', old: [APP, '/extensions/0/scope', '/extensions/0'], new: [APP, '/extensions/0/scope', '/extensions/0'] },
  },
  {
    id: 'persistent-int-changed',
    kind: 'plain',
    real: ['client', 'host', 'saved-session'],
    edit: (v) => {
      req(v, AUTH).settings.grant_bytes = 8192
    },
    loc: { rule: 'dasp-persistent-setting-changed', old: [APP, '/extensions/1/settings/grant_bytes'], new: [APP, '/extensions/1/settings/grant_bytes'] },
  },
  {
    id: 'persistent-array-changed',
    kind: 'plain',
    real: ['client', 'host', 'saved-session'],
    edit: (v) => {
      req(v, AUTH).settings.commands.push({ name: 'counter.get', kind: 'command' })
    },
    loc: { rule: 'dasp-persistent-setting-changed', old: [APP, '/extensions/1/settings/commands'], new: [APP, '/extensions/1/settings/commands'] },
  },
  {
    id: 'connection-int-changed',
    kind: 'plain',
    real: ['client', 'host'],
    edit: (v) => {
      req(v, ENC).settings.rekey_interval_s = 600
    },
    loc: {
      rule: 'dasp-connection-setting-changed',
      old: [APP, '/extensions/0/settings/rekey_interval_s'],
      new: [APP, '/extensions/0/settings/rekey_interval_s'],
    },
  },
  {
    id: 'profile-version',
    kind: 'plain',
    real: ['client', 'host', 'saved-session'],
    edit: (v) => {
      v.app.profile.version = '2'
    },
    loc: { rule: 'dasp-contract-changed', old: [APP, '/profile/version', '/profile'], new: [APP, '/profile/version', '/profile'] },
  },
  {
    id: 'profile-pin',
    kind: 'plain',
    real: ['client', 'host', 'saved-session'],
    edit: (v) => {
      v.app.profile.content.commit = hex('5e')
    },
    loc: { rule: 'dasp-pin-changed', old: [APP, '/profile/content/commit', '/profile/content'], new: [APP, '/profile/content/commit', '/profile/content'] },
  },
  {
    id: 'definition-pin',
    kind: 'plain',
    real: ['client', 'host', 'saved-session'],
    edit: (v) => {
      def(v, AUTH).content.commit = hex('a7')
    },
    loc: { rule: 'dasp-pin-changed', old: ['auth', '/content/commit', '/content'], new: ['auth', '/content/commit', '/content'] },
  },
  {
    id: 'policy-added-met',
    kind: 'other',
    real: [],
    edit: (v) => {
      v.app.policy.requires.push({ uri: AUTH, version: '1', scope: 'session' })
    },
  },
  {
    id: 'policy-added-unmet',
    kind: 'plain',
    real: ['client', 'host'],
    edit: (v) => {
      addTrace(v)
      v.app.policy.requires.push({ uri: TRACE, version: '1' })
    },
  },
  {
    id: 'policy-removed',
    kind: 'other',
    real: [],
    edit: (v) => {
      v.app.policy.requires = []
    },
  },
  // --- equivalent rewrites ---
  {
    id: 'eq-extension-order',
    kind: 'equiv',
    edit: (v) => {
      v.app.extensions.reverse()
      v.app.definitions.reverse()
    },
  },
  {
    id: 'eq-member-order',
    kind: 'equiv',
    edit: (v) => {
      v.app = reorder(v.app)
      for (const k of Object.keys(v.files)) v.files[k] = reorder(v.files[k])
    },
  },
  {
    id: 'eq-pin-hex-case',
    kind: 'equiv',
    edit: (v) => {
      v.app.profile.content.commit = v.app.profile.content.commit.toUpperCase()
      def(v, ENC).content.commit = def(v, ENC).content.commit.toUpperCase()
    },
  },
  {
    id: 'eq-definition-moved',
    kind: 'equiv',
    edit: (v) => {
      const d = v.files[DEF_PATH[AUTH]]
      delete v.files[DEF_PATH[AUTH]]
      v.files['defs/authority.json'] = d
      v.app.definitions[1] = 'defs/authority.json'
    },
  },
  {
    id: 'eq-compact-json',
    kind: 'equiv',
    edit: (v) => {
      v.raw = { [APP]: JSON.stringify(v.app) }
    },
  },
  {
    id: 'eq-enum-reordered',
    kind: 'equiv',
    edit: (v) => {
      def(v, ENC).settings.cipher.values.reverse()
    },
  },
  {
    id: 'eq-sets-reordered',
    kind: 'equiv',
    edit: (v) => {
      def(v, AUTH).scopes.reverse()
      def(v, ENC).operations.reverse()
      def(v, AUTH).settings.commands.items.required.reverse()
    },
  },
  // --- definitions, edited in place (identity and pin kept) ---
  {
    id: 'def-max-narrowed',
    kind: 'def',
    real: ['client'],
    notBroken: ['host', 'saved-session'],
    edit: (v) => {
      def(v, ENC).settings.rekey_interval_s.maximum = 7200
    },
    loc: { rule: 'dasp-setting-narrowed', old: ['enc', '/settings/rekey_interval_s/maximum'], new: ['enc', '/settings/rekey_interval_s/maximum'] },
  },
  {
    id: 'def-min-widened',
    kind: 'def',
    real: ['host'],
    notBroken: ['client', 'saved-session'],
    edit: (v) => {
      def(v, ENC).settings.rekey_interval_s.minimum = 30
    },
    loc: { rule: 'dasp-setting-widened', old: ['enc', '/settings/rekey_interval_s/minimum'], new: ['enc', '/settings/rekey_interval_s/minimum'] },
  },
  {
    id: 'def-enum-added',
    kind: 'def',
    real: ['host'],
    edit: (v) => {
      def(v, ENC).settings.cipher.values.push('chacha20poly1305')
    },
    loc: { rule: 'dasp-setting-widened', old: ['enc', '/settings/cipher/values'], new: ['enc', '/settings/cipher/values', '/settings/cipher/values/2'] },
  },
  {
    id: 'def-enum-removed',
    kind: 'def',
    real: ['client'],
    edit: (v) => {
      def(v, ENC).settings.cipher.values = ['xchacha20poly1305']
    },
    loc: { rule: 'dasp-setting-narrowed', old: ['enc', '/settings/cipher/values', '/settings/cipher/values/1'], new: ['enc', '/settings/cipher/values'] },
  },
  {
    id: 'def-unit-changed',
    kind: 'def',
    edit: (v) => {
      def(v, AUTH).settings.grant_bytes.unit = 'kibibytes'
    },
    loc: { rule: 'dasp-setting-meaning-changed', old: ['auth', '/settings/grant_bytes/unit'], new: ['auth', '/settings/grant_bytes/unit'] },
  },
  {
    id: 'def-setting-retyped',
    kind: 'def',
    real: ['client'],
    edit: (v) => {
      def(v, AUDIT).settings.retention_days = { type: 'enum', values: [30, 90, 365], persistence: 'session' }
    },
    loc: {
      rule: 'dasp-setting-meaning-changed',
      old: ['audit', '/settings/retention_days/type', '/settings/retention_days'],
      new: ['audit', '/settings/retention_days/type', '/settings/retention_days'],
    },
  },
  {
    id: 'def-persist-to-connection',
    kind: 'def',
    edit: (v) => {
      def(v, ENC).settings.cipher.persistence = 'connection'
    },
    loc: { rule: 'dasp-setting-persistence-changed', old: ['enc', '/settings/cipher/persistence'], new: ['enc', '/settings/cipher/persistence'] },
  },
  {
    id: 'def-persist-to-session',
    kind: 'def',
    edit: (v) => {
      def(v, ENC).settings.rekey_interval_s.persistence = 'session'
    },
    loc: {
      rule: 'dasp-setting-persistence-changed',
      old: ['enc', '/settings/rekey_interval_s/persistence'],
      new: ['enc', '/settings/rekey_interval_s/persistence'],
    },
  },
  {
    id: 'def-dependency-added',
    kind: 'def',
    real: ['client', 'host'],
    edit: (v) => {
      def(v, AUTH).dependencies.push({ uri: ENC, version: '1', scope: 'connection' })
    },
    loc: { rule: 'dasp-dependency-added', old: ['auth', '/dependencies'], new: ['auth', '/dependencies/0', '/dependencies'] },
  },
  {
    id: 'def-dependency-removed',
    kind: 'def',
    real: ['client', 'host', 'saved-session'],
    edit: (v) => {
      def(v, AUDIT).dependencies = []
    },
    loc: { rule: 'dasp-dependency-removed', old: ['audit', '/dependencies/0', '/dependencies'], new: ['audit', '/dependencies'] },
  },
  {
    id: 'def-operation-added',
    kind: 'def',
    edit: (v) => {
      def(v, AUTH).operations.push(READ)
    },
    loc: { rule: 'dasp-operation-added', old: ['auth', '/operations'], new: ['auth', '/operations/1', '/operations'] },
  },
  {
    id: 'def-operation-removed',
    kind: 'def',
    edit: (v) => {
      def(v, ENC).operations = [CMD, EVENT]
    },
    loc: { rule: 'dasp-operation-removed', old: ['enc', '/operations/1', '/operations'], new: ['enc', '/operations'] },
  },
  {
    id: 'def-scope-support-removed',
    kind: 'def',
    real: ['client'],
    notBroken: ['host', 'saved-session'] /* a new client can only request scopes the old definition also supports */,
    probeScopes: ENC,
    edit: (v) => {
      def(v, ENC).scopes = ['connection']
      delete def(v, ENC).scopeRelations
    },
    loc: { rule: 'dasp-support-removed', old: ['enc', '/scopes/1', '/scopes'], new: ['enc', '/scopes'] },
  },
  {
    id: 'def-scope-support-added',
    kind: 'def',
    real: ['host'],
    probeScopes: AUDIT,
    edit: (v) => {
      def(v, AUDIT).scopes = ['session', 'command']
      def(v, AUDIT).scopeRelations = 'Selected for a session, checked on each new admission.'
    },
  },
  {
    id: 'def-attr-required-added',
    kind: 'def',
    real: ['client'],
    notBroken: ['host', 'saved-session'] /* an old host ignores an attribute it did not select */,
    edit: (v) => {
      def(v, AUTH).attributes.push({ name: 'exnonce', type: 'String', on: [CMD], required: true, class: 'delivery' })
    },
    loc: { rule: 'dasp-attribute-added', old: ['auth', '/attributes'], new: ['auth', '/attributes/1', '/attributes'] },
  },
  {
    id: 'def-attr-optional-added',
    kind: 'def',
    real: [],
    edit: (v) => {
      def(v, AUDIT).attributes.push({ name: 'exhint', type: 'String', on: [EVENT], required: false, class: 'delivery' })
    },
  },
  {
    id: 'def-attr-required-removed',
    kind: 'def',
    real: ['host'],
    edit: (v) => {
      def(v, AUTH).attributes = []
    },
    loc: { rule: 'dasp-attribute-removed', old: ['auth', '/attributes/0', '/attributes'], new: ['auth', '/attributes'] },
  },
  {
    id: 'def-attr-type-changed',
    kind: 'def',
    real: ['client', 'host', 'saved-session'],
    edit: (v) => {
      def(v, AUDIT).attributes[1].type = 'String'
    },
    loc: { rule: 'dasp-attribute-type-changed', old: ['audit', '/attributes/1/type'], new: ['audit', '/attributes/1/type'] },
  },
  {
    id: 'def-attr-type-changed-required',
    kind: 'def',
    real: ['client', 'saved-session'],
    notBroken: ['host'] /* every CloudEvents URI value is a String value */,
    edit: (v) => {
      def(v, AUDIT).attributes[0].type = 'URI'
    },
    loc: { rule: 'dasp-attribute-type-changed', old: ['audit', '/attributes/0/type'], new: ['audit', '/attributes/0/type'] },
  },
  {
    id: 'def-attr-now-required',
    kind: 'def',
    real: ['host', 'saved-session'],
    edit: (v) => {
      def(v, AUDIT).attributes[1].required = true
    },
    loc: { rule: 'dasp-attribute-required-changed', old: ['audit', '/attributes/1/required'], new: ['audit', '/attributes/1/required'] },
  },
  {
    id: 'def-attr-placement',
    kind: 'def',
    real: ['client', 'host', 'saved-session'],
    edit: (v) => {
      def(v, AUDIT).attributes[0].on = [CMD, EVENT]
    },
    loc: { rule: 'dasp-attribute-placement-changed', old: ['audit', '/attributes/0/on'], new: ['audit', '/attributes/0/on', '/attributes/0/on/1'] },
  },
  {
    id: 'def-setting-added',
    kind: 'def',
    real: ['client', 'host'],
    edit: (v) => {
      def(v, AUTH).settings.max_skew_s = { type: 'integer', unit: 'seconds', minimum: 0, maximum: 300, persistence: 'session' }
      req(v, AUTH).settings.max_skew_s = 30
    },
    loc: { rule: 'dasp-persistent-setting-changed', old: [APP, '/extensions/1/settings'], new: [APP, '/extensions/1/settings/max_skew_s'] },
  },
  {
    id: 'def-setting-removed',
    kind: 'def',
    real: ['client', 'host', 'saved-session'],
    edit: (v) => {
      delete def(v, AUDIT).settings.retention_days
      delete req(v, AUDIT).settings.retention_days
    },
    loc: { rule: 'dasp-persistent-setting-changed', old: [APP, '/extensions/2/settings/retention_days'], new: [APP, '/extensions/2/settings'] },
  },
  {
    id: 'ext-uri-trailing-slash',
    kind: 'plain',
    real: ['client', 'host', 'saved-session'],
    edit: (v) => {
      req(v, AUDIT).uri = `${AUDIT}/`
      def(v, AUDIT).identity.uri = `${AUDIT}/`
    },
  },
  {
    id: 'def-attr-class',
    kind: 'def',
    edit: (v) => {
      def(v, AUDIT).attributes[1].class = 'delivery'
    },
  },
  {
    id: 'def-items-enum-added',
    kind: 'def',
    real: ['host'],
    edit: (v) => {
      def(v, AUTH).settings.commands.items.properties.kind.enum.push('delegated')
    },
  },
  {
    id: 'def-maxitems-narrowed',
    kind: 'def',
    real: ['client'],
    edit: (v) => {
      def(v, AUTH).settings.commands.maxItems = 2
    },
    loc: { rule: 'dasp-setting-narrowed', old: ['auth', '/settings/commands/maxItems'], new: ['auth', '/settings/commands/maxItems'] },
  },
  {
    id: 'def-uniqueby-changed',
    kind: 'def',
    edit: (v) => {
      def(v, AUTH).settings.commands.uniqueBy = 'kind'
    },
    loc: { rule: 'dasp-setting-meaning-changed', old: ['auth', '/settings/commands/uniqueBy'], new: ['auth', '/settings/commands/uniqueBy'] },
  },
  // --- more selection edits and rewrites ---
  {
    id: 'persistent-array-reordered',
    kind: 'other',
    edit: (v) => {
      req(v, AUTH).settings.commands.reverse()
    },
  },
  {
    id: 'eq-number-spelling',
    kind: 'equiv',
    edit: (v) => {
      v.raw = {
        [APP]: JSON.stringify(v.app, null, 2)
          .replace('"rekey_interval_s": 3600', '"rekey_interval_s": 3.6e3')
          .replace('"grant_bytes": 16384', '"grant_bytes": 16384.0'),
      }
    },
  },
  {
    id: 'policy-scope-added',
    kind: 'other',
    real: [],
    edit: (v) => {
      v.app.policy.requires[0].scope = 'connection'
    },
  },
  {
    id: 'ext-second-scope-added',
    kind: 'plain',
    real: ['host'],
    edit: (v) => {
      v.app.extensions.push({ ...clone(req(v, AUTH)), scope: 'command' })
    },
    loc: { rule: 'dasp-extension-added', old: [APP, '/extensions'], new: [APP, '/extensions/3'] },
  },
  {
    id: 'ext-second-scope-removed',
    kind: 'plain',
    real: ['client', 'saved-session'],
    both: (v) => {
      v.app.extensions.push({ ...clone(req(v, AUTH)), scope: 'command' })
    },
    edit: (v) => {
      v.app.extensions.pop()
    },
    loc: { rule: 'dasp-extension-removed', old: [APP, '/extensions/3'], new: [APP, '/extensions'] },
  },
  {
    id: 'def-attr-now-optional',
    kind: 'def',
    real: ['host'],
    edit: (v) => {
      def(v, AUTH).attributes[0].required = false
    },
    loc: { rule: 'dasp-attribute-required-changed', old: ['auth', '/attributes/0/required'], new: ['auth', '/attributes/0/required'] },
  },
  {
    id: 'eq-attributes-reordered',
    kind: 'equiv',
    edit: (v) => {
      def(v, AUDIT).attributes.reverse()
    },
  },
  {
    id: 'eq-annotations-app',
    kind: 'equiv',
    edit: (v) => {
      v.app.$comment = 'reviewed'
      req(v, ENC).description = 'transport protection'
      v.app['x-owner'] = 'team-a'
    },
  },
  {
    id: 'annotations-def-in-place',
    kind: 'other',
    real: [],
    edit: (v) => {
      def(v, AUTH).$comment = 'reviewed'
      def(v, AUTH)['x-owner'] = 'team-a'
    },
  },
  {
    id: 'policy-added-other-scope',
    kind: 'plain',
    real: ['client', 'host'],
    edit: (v) => {
      v.app.extensions.push({ ...clone(req(v, AUTH)), scope: 'command' })
      v.app.policy.requires.push({ uri: AUTH, version: '1', scope: 'command' })
    },
  },
  {
    id: 'def-dependency-scope-changed',
    kind: 'def',
    real: ['client', 'host', 'saved-session'],
    edit: (v) => {
      def(v, AUDIT).dependencies[0].scope = 'command'
      v.app.extensions.push({ ...clone(req(v, AUTH)), scope: 'command' })
    },
  },
  {
    id: 'def-items-enum-replaced',
    kind: 'def',
    real: ['client', 'host'],
    edit: (v) => {
      def(v, AUTH).settings.commands.items.properties.kind.enum = ['standing', 'command', 'delegated']
      def(v, AUTH).settings.commands.items.properties.name.pattern = '^counter[.]'
    },
  },
]
function reorder(x: J): J {
  if (Array.isArray(x)) return x.map(reorder)
  if (x === null || typeof x !== 'object') return x
  const out: J = {}
  for (const k of Object.keys(x).reverse()) out[k] = reorder(x[k])
  return out
}

// ---------------------------------------------------------------------------------------------
// JSON positions: every node's value start and member-key start (1-based line/column, UTF-16).
// ---------------------------------------------------------------------------------------------
function positions(text: string): Map<string, { value: [number, number]; key?: [number, number] }> {
  const map = new Map<string, { value: [number, number]; key?: [number, number] }>()
  let i = 0
  const at = (k: number): [number, number] => {
    let line = 1,
      col = 1
    for (let j = 0; j < k; j++)
      if (text[j] === '\n') {
        line++
        col = 1
      } else col++
    return [line, col]
  }
  const ws = () => {
    while (i < text.length && /\s/.test(text[i])) i++
  }
  const str = (): string => {
    const s = i
    i++
    while (text[i] !== '"') {
      if (text[i] === '\\') i++
      i++
    }
    i++
    return JSON.parse(text.slice(s, i))
  }
  const esc = (s: string) => s.replace(/~/g, '~0').replace(/\//g, '~1')
  const value = (ptr: string, key?: [number, number]) => {
    ws()
    map.set(ptr, { value: at(i), key })
    if (text[i] === '{') {
      i++
      ws()
      if (text[i] === '}') {
        i++
        return
      }
      for (;;) {
        ws()
        const kp = at(i)
        const k = str()
        ws()
        i++
        value(`${ptr}/${esc(k)}`, kp)
        ws()
        if (text[i] === ',') {
          i++
          continue
        }
        i++
        return
      }
    } else if (text[i] === '[') {
      i++
      ws()
      if (text[i] === ']') {
        i++
        return
      }
      for (let n = 0; ; n++) {
        value(`${ptr}/${n}`)
        ws()
        if (text[i] === ',') {
          i++
          continue
        }
        i++
        return
      }
    } else if (text[i] === '"') str()
    else while (i < text.length && /[^\s,\]}]/.test(text[i])) i++
  }
  value('')
  return map
}

// ---------------------------------------------------------------------------------------------
// Harness
// ---------------------------------------------------------------------------------------------
let TMP = ''
const compiler = new ContractCompiler()
let fileCounter = 0

function writeVersion(dir: string, v: Version): Record<string, string> {
  const texts: Record<string, string> = {}
  for (const [rel, doc] of Object.entries(v.files)) texts[rel] = JSON.stringify(doc, null, 2) + '\n'
  texts[APP] = v.raw?.[APP] ?? JSON.stringify(v.app, null, 2) + '\n'
  for (const [rel, text] of Object.entries(texts)) {
    mkdirSync(dirname(join(dir, rel)), { recursive: true })
    writeFileSync(join(dir, rel), text)
  }
  return texts
}
const errorsOf = (r: J) => (r.diagnostics as J[]).filter((d) => d.severity === 'error')

async function loadModule(file: string): Promise<J> {
  const r = await compiler.compile(file, { declarations: false })
  const errs = errorsOf(r)
  if (errs.length) throw new Error(`${file} does not compile: ${errs.map((d: J) => `${d.code} ${d.pointer} ${d.message}`).join('; ')}`)
  const code = (r.code as string).replace(/(['"])unplugin-contracts\/runtime\/dasp\1/g, JSON.stringify(pathToFileURL(RUNTIME_PATH).href))
  const out = join(TMP, 'modules', `m${++fileCounter}.mjs`)
  mkdirSync(dirname(out), { recursive: true })
  writeFileSync(out, code)
  return nodeRequire(out)
}

/** The package's checker as the host's validation: `app` (a selection beside X's definitions) compiled. */
async function checkAs(dir: string, app: J, wantRequest = false): Promise<{ ok: boolean; codes: string[]; request?: J }> {
  const file = join(dir, `host-check-${++fileCounter}.dasp.json`)
  writeFileSync(file, JSON.stringify(app, null, 2))
  const r = await compiler.compile(file, { declarations: false })
  const errs = errorsOf(r)
  if (errs.length) return { ok: false, codes: errs.map((d: J) => d.code) }
  if (!wantRequest) return { ok: true, codes: [] }
  const out = join(TMP, 'modules', `h${fileCounter}.mjs`)
  writeFileSync(out, (r.code as string).replace(/(['"])unplugin-contracts\/runtime\/dasp\1/g, JSON.stringify(pathToFileURL(RUNTIME_PATH).href)))
  return { ok: true, codes: [], request: nodeRequire(out).selectionRequest }
}

interface Side {
  dir: string
  v: Version
  mod: J
  texts: Record<string, string>
}
interface Exchange {
  ok: boolean
  why: string
}
const CONTRACTS = ['core', 'profile', 'binding'] as const

/** A host built from `host` receives the request of `client`'s module: the H_sel verdict and the H_support one. */
async function exchange(host: Side, client: Side): Promise<{ sel: Exchange; support: Exchange }> {
  const R = client.mod.selectionRequest
  const X = host.mod.selectionRequest
  for (const c of CONTRACTS)
    if (canon(R[c]) !== canon(X[c])) {
      const no = { ok: false, why: `host serves another ${c}` }
      return { sel: no, support: no }
    }
  const entries: J[] = R.extensions.map((e: J) => X.extensions.find((x: J) => x.uri === e.uri && x.version === e.version && x.scope === e.scope))
  const app = {
    ...clone(host.v.app),
    core: R.core,
    profile: R.profile,
    binding: R.binding,
    extensions: R.extensions.map((e: J) => ({ uri: e.uri, version: e.version, scope: e.scope, settings: e.settings })),
  }
  const check = await checkAs(host.dir, app, true)
  const judge = (confirmed: J): Exchange =>
    client.mod.isExactSelection(clone(confirmed))
      ? { ok: true, why: 'confirmed exactly' }
      : { ok: false, why: `client refuses the confirmation: ${diffText(R, confirmed)}` }
  const refused = { ok: false, why: `host validation refuses: ${check.codes.join(', ')}` }
  const support = check.ok ? judge(check.request) : refused
  const missing = R.extensions.find((_: J, k: number) => !entries[k])
  const sel = missing
    ? { ok: false, why: `host does not serve ${missing.uri} ${missing.version} (${missing.scope})` }
    : check.ok
      ? judge({ ...clone(R), ...Object.fromEntries(CONTRACTS.map((c) => [c, X[c]])), extensions: entries })
      : refused
  return { sel, support }
}
function diffText(a: J, b: J, path = ''): string {
  if (canon(a) === canon(b)) return ''
  if (a && b && typeof a === 'object' && typeof b === 'object') {
    for (const k of new Set([...Object.keys(a), ...Object.keys(b)])) {
      const d = diffText(a[k], b[k], `${path}/${k}`)
      if (d) return d
    }
  }
  return `${path}: ${JSON.stringify(a)?.slice(0, 80)} vs ${JSON.stringify(b)?.slice(0, 80)}`
}

// Events: what a sender's module lets out, checked by the receiver's module.
const SAMPLES = ['grant-7', 7, true, 'https://example.com/a', '2024-01-01T00:00:00Z', 'AAAA', 'x y']
const COMMAND_TYPES = [CMD]
const OTHER_TYPES = [READ, EVENT]
function attributeRulesOf(v: Version): J[] {
  return v.app.extensions.flatMap((e: J) => {
    const d = Object.values(v.files).find((f: J) => f.identity.uri === e.uri && f.identity.version === e.version)
    return d ? d.attributes : []
  })
}
function candidateEvents(sender: Side): J[] {
  const names: string[] = sender.mod.attributeNames ?? []
  const out: J[] = []
  for (const type of [...COMMAND_TYPES, ...OTHER_TYPES]) {
    const valid = (n: string) => SAMPLES.filter((s) => sender.mod.attributeValidators?.[n]?.(s))
    for (let mask = 0; mask < 1 << Math.min(names.length, 4); mask++) {
      const base: J = { type }
      names.forEach((n, j) => {
        if (mask & (1 << j) && valid(n).length) base[n] = valid(n)[0]
      })
      out.push(base)
      names.forEach((n, j) => {
        if (mask & (1 << j)) for (const s of valid(n).slice(1)) out.push({ ...base, [n]: s })
      })
    }
  }
  return out.filter((e) => sender.mod.checkPlacement(e).ok)
}
function eventBreaks(old: Side, next: Side): Record<Aud, string | undefined> {
  const res: Record<Aud, string | undefined> = { client: undefined, host: undefined, 'saved-session': undefined }
  const savedNames = new Set([...attributeRulesOf(old.v), ...attributeRulesOf(next.v)].filter((a) => a.class === 'saved').map((a) => a.name))
  const savedTypes = new Set([...attributeRulesOf(old.v), ...attributeRulesOf(next.v)].filter((a) => a.class === 'saved').flatMap((a) => a.on))
  for (const [sender, receiver, dir] of [
    [old, next, 'old->new'],
    [next, old, 'new->old'],
  ] as const) {
    for (const e of candidateEvents(sender)) {
      const r = receiver.mod.checkPlacement(e)
      if (r.ok) continue
      const command = runtime.isCommandType(e.type)
      const what = `${dir} ${JSON.stringify(e)} refused: ${r.code} ${r.attribute ?? ''}`
      // commands: the client sends; other events: the host sends.
      const aud: Aud = command ? (dir === 'old->new' ? 'client' : 'host') : dir === 'new->old' ? 'client' : 'host'
      res[aud] ??= what
      if (dir === 'old->new' && savedTypes.has(e.type) && savedNames.has(r.attribute)) res['saved-session'] ??= `saved event ${what}`
    }
  }
  return res
}

// Definition probes: sample values of each setting whose definition changed (and scopes).
function sampleValues(d1: J, d2: J, current: J): J[] {
  const out: J[] = [current]
  for (const d of [d1, d2].filter(Boolean)) {
    if (d.type === 'integer') for (const b of [d.minimum, d.maximum]) if (typeof b === 'number') out.push(b - 1, b, b + 1)
    if (d.type === 'enum') out.push(...d.values, 'zz-unknown')
    if (d.type === 'boolean') out.push(true, false)
    if (d.type === 'string') out.push('x')
    if (d.type === 'array' && Array.isArray(current)) {
      const els = [
        { name: 'n'.repeat(20), kind: 'standing' },
        { name: 'counter.x', kind: 'delegated' },
        { name: 'other', kind: 'command' },
      ]
      out.push(current.slice(0, 1), [...current, els[2]], ...els.map((e) => [e]), [
        { name: 'a', kind: 'standing' },
        { name: 'b', kind: 'standing' },
      ])
    }
  }
  const seen = new Set<string>()
  return out.filter((x) => !seen.has(canon(x)) && (seen.add(canon(x)), true))
}
async function probeDefinitions(old: Side, next: Side, pair: Pair): Promise<Record<Aud, string | undefined>> {
  const res: Record<Aud, string | undefined> = { client: undefined, host: undefined, 'saved-session': undefined }
  const valid = async (s: Side, index: number, patch: (e: J) => void) => {
    const app = clone(s.v.app)
    patch(app.extensions[index])
    return (await checkAs(s.dir, app)).ok
  }
  for (const e of old.v.app.extensions) {
    const i = old.v.app.extensions.indexOf(e)
    const j = next.v.app.extensions.findIndex((x: J) => x.uri === e.uri && x.version === e.version && x.scope === e.scope)
    const d1 = def(old.v, e.uri),
      d2 = j >= 0 ? def(next.v, e.uri) : undefined
    if (!d1 || !d2 || j < 0) continue
    const probes: Array<[string, (x: J) => void]> = []
    for (const name of Object.keys(e.settings)) {
      if (canon(d1.settings[name]) === canon(d2.settings[name])) continue
      for (const val of sampleValues(d1.settings[name], d2.settings[name], e.settings[name]))
        probes.push([
          `${name}=${JSON.stringify(val)}`,
          (x) => {
            x.settings[name] = val
          },
        ])
    }
    if (pair.probeScopes === e.uri)
      for (const sc of new Set([...d1.scopes, ...d2.scopes]))
        probes.push([
          `scope=${sc}`,
          (x) => {
            x.scope = sc
          },
        ])
    for (const [label, patch] of probes.slice(0, 12)) {
      const a = await valid(old, i, patch),
        b = await valid(next, j, patch)
      if (a && !b) res.client ??= `${e.uri} ${label}: old definition accepts, new refuses`
      if (b && !a) res.host ??= `${e.uri} ${label}: new definition accepts, old refuses`
    }
  }
  return res
}

interface Result {
  pair: Pair
  oldSide: Side
  newSide: Side
  diff: J
  findings: J[]
  real: Record<Aud, string | undefined>
  support: Record<'client' | 'host', Exchange>
  form: 'two-file' | 'against'
  floorCheck: J
  floorVsNewFloor: J
  sameRequest: boolean
  witnessChecks: Array<{ finding: J; ok: boolean; why: string }>
}
const results = new Map<string, Result>()
const failures = new Map<string, string>()

function runCli(args: string[], cwd: string): Promise<{ code: number | null; stdout: string; stderr: string }> {
  return new Promise((done) => {
    const child = spawn(process.execPath, [CLI, ...args], {
      cwd,
      env: { ...process.env, NO_COLOR: '1', UNPLUGIN_CONTRACTS_CACHE: '0' },
      stdio: ['ignore', 'pipe', 'pipe'],
    })
    const out: Buffer[] = [],
      err: Buffer[] = []
    child.stdout.on('data', (b) => out.push(b))
    child.stderr.on('data', (b) => err.push(b))
    const timer = setTimeout(() => child.kill('SIGKILL'), 60_000)
    child.on('close', (code) => {
      clearTimeout(timer)
      done({ code, stdout: Buffer.concat(out).toString(), stderr: Buffer.concat(err).toString() })
    })
  })
}

async function verifyWitness(r: Result, f: J): Promise<{ ok: boolean; why: string }> {
  const list: J[] = f.data?.witnesses ?? (f.data?.witness !== undefined ? [f.data.witness] : [])
  const whys: string[] = []
  let ok = true
  for (const w of list) {
    // The finding's setting: the definition file it points at, `/settings/<name>` in its pointer.
    const loc = f.new ?? f.old
    const m = /^\/settings\/([^/]+)/.exec(loc.pointer)
    const uri = Object.keys(DEF_PATH).find((u) => loc.file.endsWith(DEF_PATH[u]))
    // Every witness is `{value, acceptedBy}` (the setting rules' were bare values once: the pass noted it).
    if (!m || !uri || !w || typeof w !== 'object' || !('value' in w) || !['old', 'new'].includes(w.acceptedBy)) {
      ok = false
      whys.push(`unrecognized witness ${JSON.stringify(w)} at ${loc.file}#${loc.pointer}`)
      continue
    }
    const name = m[1]
    const i = r.oldSide.v.app.extensions.findIndex((e: J) => e.uri === uri)
    const j = r.newSide.v.app.extensions.findIndex((e: J) => e.uri === uri)
    const isArraySetting = def(r.oldSide.v, uri)?.settings[name]?.type === 'array'
    // As the docs give it: a whole payload of the schema compared (for an array setting's items, one element).
    const value = isArraySetting && f.rule.startsWith('schema-') ? [w.value] : w.value
    const probe = async (s: Side, k: number) => {
      const app = clone(s.v.app)
      app.extensions[k].settings[name] = value
      return (await checkAs(s.dir, app)).ok
    }
    const a = i >= 0 ? await probe(r.oldSide, i) : false
    const b = j >= 0 ? await probe(r.newSide, j) : false
    const good = w.acceptedBy === 'old' ? a && !b : b && !a
    if (!good) ok = false
    whys.push(
      `${JSON.stringify(w.value)} (acceptedBy ${w.acceptedBy}) as ${name}=${JSON.stringify(value)}: old ${a ? 'accepts' : 'refuses'}, new ${b ? 'accepts' : 'refuses'}`,
    )
  }
  return { ok, why: whys.join('; ') }
}

// The two-file form for these pairs (about 0.5 CPU s per run); every pair through one
// `contracts diff --against HEAD --json` over a repository holding all pairs (one process). The two
// answers must agree where both exist ("(g)"), and the two-file one is then the one judged.
const TWO_FILE_SUBSET = ['def-scope-support-added', 'def-attr-type-changed', 'eq-enum-reordered', 'def-persist-to-connection']
// PROBE_TWO_FILE=all runs the two-file form for every pair (about 30 CPU s more): a full cross-check of the two forms.
const TWO_FILE = new Set(process.env.PROBE_TWO_FILE === 'all' ? PAIRS.map((p) => p.id) : TWO_FILE_SUBSET)
const GIT_ENV = {
  GIT_AUTHOR_NAME: 'probe',
  GIT_AUTHOR_EMAIL: 'probe@example.com',
  GIT_COMMITTER_NAME: 'probe',
  GIT_COMMITTER_EMAIL: 'probe@example.com',
  GIT_CONFIG_NOSYSTEM: '1',
  GIT_CONFIG_GLOBAL: '/dev/null',
}
const git = (cwd: string, ...args: string[]) =>
  execFileSync('git', ['-c', 'commit.gpgsign=false', ...args], { cwd, env: { ...process.env, ...GIT_ENV }, stdio: 'pipe', timeout: 30_000 })
const batch = new Map<string, J[]>()
let batchDiff: J

beforeAll(async () => {
  TMP = mkdtempSync(join(tmpdir(), 'daspprobe-'))
  const REPO = join(TMP, 'repo')
  const versions = new Map<string, { ov: Version; nv: Version; oldTexts: Record<string, string>; newTexts: Record<string, string> }>()
  for (const pair of PAIRS) {
    const ov = base(),
      nv = base()
    pair.both?.(ov)
    pair.both?.(nv)
    pair.edit(nv)
    const oldTexts = writeVersion(join(TMP, pair.id, 'old'), ov),
      newTexts = writeVersion(join(TMP, pair.id, 'new'), nv)
    writeVersion(join(REPO, pair.id), ov)
    versions.set(pair.id, { ov, nv, oldTexts, newTexts })
  }
  git(REPO, 'init', '-q')
  git(REPO, 'add', '-A')
  git(REPO, 'commit', '-q', '-m', 'old versions')
  for (const pair of PAIRS) {
    rmSync(join(REPO, pair.id), { recursive: true, force: true })
    writeVersion(join(REPO, pair.id), versions.get(pair.id)!.nv)
  }
  const cliRuns: Array<Promise<void>> = []
  cliRuns.push(
    runCli(['diff', '--against', 'HEAD', '--json'], REPO).then((out) => {
      batchDiff = JSON.parse(out.stdout)
      for (const f of batchDiff.findings ?? []) {
        const file: string = (f.new ?? f.old).file
        const id = file.slice(REPO.length + 1).split('/')[0]
        if (!batch.has(id)) batch.set(id, [])
        batch.get(id)!.push({
          ...f,
          old: f.old && { ...f.old, file: f.old.file.replace(join(REPO, id), join(TMP, id, 'old')) },
          new: f.new && { ...f.new, file: f.new.file.replace(join(REPO, id), join(TMP, id, 'new')) },
        })
      }
    }),
  )
  const twoFile = new Map<string, J>()
  let chain = Promise.resolve()
  for (const id of TWO_FILE) {
    const dir = join(TMP, id)
    chain = chain.then(() =>
      runCli(['diff', join(dir, 'old', APP), join(dir, 'new', APP), '--json'], dir).then((out) => {
        try {
          twoFile.set(id, JSON.parse(out.stdout))
        } catch {
          failures.set(id, `diff printed no JSON (exit ${out.code}): ${out.stderr.slice(0, 2000)}`)
        }
      }),
    )
  }
  cliRuns.push(chain)

  const realities = new Map<string, Omit<Result, 'diff' | 'findings' | 'witnessChecks' | 'form'>>()
  for (const pair of PAIRS) {
    try {
      const { ov, nv, oldTexts, newTexts } = versions.get(pair.id)!
      const oldDir = join(TMP, pair.id, 'old'),
        newDir = join(TMP, pair.id, 'new')
      const oldSide: Side = { dir: oldDir, v: ov, texts: oldTexts, mod: await loadModule(join(oldDir, APP)) }
      const newSide: Side = { dir: newDir, v: nv, texts: newTexts, mod: await loadModule(join(newDir, APP)) }
      const real: Record<Aud, string | undefined> = { client: undefined, host: undefined, 'saved-session': undefined }
      const c = await exchange(newSide, oldSide)
      if (!c.sel.ok) real.client = `old client -> new host: ${c.sel.why}`
      const h = await exchange(oldSide, newSide)
      if (!h.sel.ok) real.host = `new client -> old host: ${h.sel.why}`
      const floor = JSON.parse(JSON.stringify(oldSide.mod.sessionFloor))
      const floorCheck = runtime.checkSessionFloor(floor, clone(newSide.mod.selectionRequest))
      if (!floorCheck.ok) real['saved-session'] = `checkSessionFloor(old floor, new request): ${floorCheck.code} ${floorCheck.reason}`
      const floorVsNewFloor = runtime.checkSessionFloor(floor, JSON.parse(JSON.stringify(newSide.mod.sessionFloor)))
      // Events are exchanged under one confirmed selection: judged when both select the same extensions.
      const set = (s: Side) =>
        s.mod.selectionRequest.extensions
          .map((e: J) => `${e.uri} ${e.version} ${e.scope}`)
          .sort()
          .join('|')
      if (set(oldSide) === set(newSide)) {
        const ev = eventBreaks(oldSide, newSide)
        for (const a of Object.keys(ev) as Aud[]) real[a] ??= ev[a] && `events: ${ev[a]}`
      }
      if (pair.kind === 'def') {
        const pr = await probeDefinitions(oldSide, newSide, pair)
        for (const a of Object.keys(pr) as Aud[]) real[a] ??= pr[a] && `sample request: ${pr[a]}`
      }
      realities.set(pair.id, {
        pair,
        oldSide,
        newSide,
        real,
        support: { client: c.support, host: h.support },
        floorCheck,
        floorVsNewFloor,
        sameRequest: canon(oldSide.mod.selectionRequest) === canon(newSide.mod.selectionRequest),
      })
    } catch (e) {
      failures.set(pair.id, String((e as Error)?.stack ?? e))
    }
  }
  await Promise.all(cliRuns)
  for (const [id, base] of realities) {
    const two = twoFile.get(id)
    const diff = two ?? { ...batchDiff, findings: batch.get(id) ?? [] }
    const r: Result = { ...base, diff, findings: diff.findings ?? [], form: two ? 'two-file' : 'against', witnessChecks: [] }
    for (const f of r.findings)
      if (f.data && ('witness' in f.data || 'witnesses' in f.data)) r.witnessChecks.push({ finding: f, ...(await verifyWitness(r, f)) })
    results.set(id, r)
  }
  for (const [id, d] of twoFile) twoFileVsBatch.set(id, { two: d.findings ?? [], batch: batch.get(id) ?? [] })
  if (DEBUG) {
    mkdirSync(join(HERE, '.tmp'), { recursive: true })
    writeFileSync(
      join(HERE, '.tmp', 'dasp-diff-runtime.json'),
      JSON.stringify(
        [...results.values()].map((r) => ({
          id: r.pair.id,
          form: r.form,
          real: r.real,
          support: r.support,
          floorCheck: r.floorCheck,
          floorVsNewFloor: r.floorVsNewFloor,
          sameRequest: r.sameRequest,
          findings: r.findings,
          witnessChecks: r.witnessChecks.map((w) => ({ rule: w.finding.rule, ok: w.ok, why: w.why })),
        })),
        null,
        2,
      ),
    )
  }
}, 300_000)
const twoFileVsBatch = new Map<string, { two: J[]; batch: J[] }>()

afterAll(() => {
  if (TMP && !DEBUG) rmSync(TMP, { recursive: true, force: true })
})

// ---------------------------------------------------------------------------------------------
// Assertions
// ---------------------------------------------------------------------------------------------
const AUDS: Aud[] = ['client', 'host', 'saved-session']
const RANK = { info: 0, warning: 1, breaking: 2 } as Record<string, number>
function flagged(r: Result, a: Aud): { level: string; rules: string[] } {
  let level = 'none'
  const rules: string[] = []
  for (const f of r.findings) {
    if (!f.audiences.some((x: J) => x.kind === a || x.kind === 'everyone')) continue
    rules.push(`${f.rule}(${f.level})`)
    if (level === 'none' || RANK[f.level] > RANK[level]) level = f.level
  }
  return { level, rules }
}
const brief = (r: Result) =>
  r.findings
    .map(
      (f) =>
        `${f.rule} ${f.level} [${f.audiences.map((a: J) => a.kind).join(',')}] old=${f.old?.pointer} new=${f.new?.pointer}${f.data && Object.keys(f.data).length ? ' data=' + JSON.stringify(f.data).slice(0, 300) : ''}`,
    )
    .join('\n    ')

describe.each(PAIRS.map((p) => [p.id, p] as const))('%s', (id, pair) => {
  it('harness: both versions compile; reality is what the edit was built to do', () => {
    expect(failures.get(id)).toBeUndefined()
    const r = results.get(id)!
    const invalid = (r.diff.contracts ?? []).filter((c: J) => !c.valid && (r.form === 'two-file' || String(c.new ?? c.old).includes(`/repo/${id}/`)))
    expect(invalid, JSON.stringify(r.diff.diagnostics?.filter((d: J) => String(d.file).includes(`/${id}/`)))).toEqual([])
    if (pair.kind === 'equiv')
      expect(
        AUDS.filter((a) => r.real[a]),
        JSON.stringify(r.real, null, 1),
      ).toEqual([])
    if (pair.real)
      expect(
        AUDS.filter((a) => r.real[a]),
        JSON.stringify(r.real, null, 1),
      ).toEqual(pair.real)
  })

  it('(a) soundness: every audience that really breaks is flagged (breaking or warning)', () => {
    const r = results.get(id)!
    const missed = AUDS.filter((a) => r.real[a] && flagged(r, a).level !== 'breaking' && flagged(r, a).level !== 'warning')
    expect(
      missed.map((a) => `${a}: ${r.real[a]}`),
      `findings:\n    ${brief(r)}`,
    ).toEqual([])
  })

  it('(b) every witness shows the break through the package', () => {
    const r = results.get(id)!
    const bad = r.witnessChecks.filter((w) => !w.ok).map((w) => `${w.finding.rule}: ${w.why}`)
    expect(bad).toEqual([])
  })

  itWhen(pair.kind === 'def')('(a2) soundness of the rules themselves: not counting the generic in-place warning', () => {
    const r = results.get(id)!
    const own = { ...r, findings: r.findings.filter((f) => f.rule !== 'dasp-definition-changed-in-place') }
    const missed = AUDS.filter((a) => r.real[a] && flagged(own, a).level !== 'breaking' && flagged(own, a).level !== 'warning')
    expect(
      missed.map((a) => `${a}: ${r.real[a]}`),
      `findings:\n    ${brief(r)}`,
    ).toEqual([])
  })

  itWhen(!!pair.notBroken)('(h) precision: audiences that cannot break are not called broken by the rules', () => {
    const r = results.get(id)!
    const own = { ...r, findings: r.findings.filter((f) => f.rule !== 'dasp-definition-changed-in-place') }
    expect(
      pair.notBroken!.filter((a) => flagged(own, a).level === 'breaking').map((a) => `${a}: ${flagged(own, a).rules.join(', ')}`),
      brief(r),
    ).toEqual([])
  })

  itWhen(pair.kind === 'plain')('(c) completeness: a plain break is breaking for that audience', () => {
    const r = results.get(id)!
    const weak = AUDS.filter((a) => r.real[a] && flagged(r, a).level !== 'breaking').map((a) => `${a} is ${flagged(r, a).level}: ${r.real[a]}`)
    expect(weak, `findings:\n    ${brief(r)}`).toEqual([])
  })

  itWhen(pair.kind === 'equiv')('(d) an equivalent rewrite has no breaking or warning finding', () => {
    const r = results.get(id)!
    expect(
      r.findings.filter((f) => f.level !== 'info').map((f) => `${f.rule} ${f.level} ${f.new?.pointer}`),
      brief(r),
    ).toEqual([])
  })

  itWhen(!!pair.loc)('(e) the finding points at the changed node in each version', () => {
    const r = results.get(id)!
    const loc = pair.loc!
    const fs = r.findings.filter((f) => f.rule === loc.rule)
    expect(fs.length, `no ${loc.rule}; findings:\n    ${brief(r)}`).toBeGreaterThan(0)
    const problems: string[] = []
    for (const f of fs) {
      for (const [sideName, side, want] of [
        ['old', r.oldSide, loc.old],
        ['new', r.newSide, loc.new],
      ] as const) {
        const l = f[sideName]
        const [fileKey, ...ptrs] = want
        const rel = fileKey === APP ? APP : DEF_PATH[{ enc: ENC, auth: AUTH, audit: AUDIT, trace: TRACE }[fileKey]!]
        if (!l) {
          problems.push(`${sideName}: no location`)
          continue
        }
        if (resolve(l.file) !== resolve(side.dir, rel)) problems.push(`${sideName}: file ${l.file}, expected ${resolve(side.dir, rel)}`)
        if (!ptrs.includes(l.pointer)) problems.push(`${sideName}: pointer ${l.pointer}, expected one of ${ptrs.join(' ')}`)
        const pos = positions(side.texts[rel]).get(l.pointer)
        if (!pos) problems.push(`${sideName}: pointer ${l.pointer} names no node of ${rel}`)
        else if (![pos.value, pos.key].some((p) => p && p[0] === l.line && p[1] === l.column))
          problems.push(`${sideName}: ${l.pointer} at ${l.line}:${l.column}, the node is at ${pos.value.join(':')} (key ${pos.key?.join(':') ?? '-'})`)
      }
    }
    expect(problems).toEqual([])
  })

  itWhen(TWO_FILE.has(id))('(g) the two-file form and --against agree on this pair', () => {
    const x = twoFileVsBatch.get(id)!
    const norm = (fs: J[]) =>
      fs
        .map((f) =>
          canon({
            rule: f.rule,
            level: f.level,
            audiences: f.audiences,
            data: f.data,
            old: f.old && { ...f.old, file: f.old.file.split('/').slice(-2).join('/') },
            new: f.new && { ...f.new, file: f.new.file.split('/').slice(-2).join('/') },
          }),
        )
        .sort()
    expect(norm(x.batch)).toEqual(norm(x.two))
  })

  // What no request shows and the floor check cannot see (docs/dasp.md, "Diff"): a saved setting's
  // meaning (type, unit, uniqueness key) and an affected operation removed in place, which the
  // differ reports for saved sessions by the definition's reading, and saved attributes (replayed by
  // checkPlacement, checked in (a)). A setting's persistence changed is held to the floor check (the
  // pass's finding: saved-session was an over-report there).
  const beyondTheFloor = ['def-operation-removed', 'def-unit-changed', 'def-setting-retyped', 'def-uniqueby-changed']
  itWhen(
    ![
      'def-attr-type-changed',
      'def-attr-type-changed-required',
      'def-attr-now-required',
      'def-attr-placement',
      'def-attr-class',
      'def-attr-required-added',
      'def-attr-required-removed',
      'def-attr-optional-added',
      ...beyondTheFloor,
    ].includes(pair.id),
  )('(f) saved-session is flagged exactly when checkSessionFloor refuses (docs/dasp.md), for what a request carries', () => {
    const r = results.get(id)!
    const f = flagged(r, 'saved-session')
    const why = r.floorCheck.ok ? 'checkSessionFloor accepts the new request' : `checkSessionFloor refuses: ${r.floorCheck.code} ${r.floorCheck.reason}`
    expect(f.level === 'breaking', `${why}; saved-session findings: ${f.rules.join(', ') || 'none'}`).toBe(!r.floorCheck.ok)
  })
})
