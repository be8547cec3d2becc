// ESLint (flat config): the recommended JavaScript and TypeScript rules, and the layer boundaries
// docs/architecture.md describes, as import restrictions per folder.
import js from '@eslint/js'
import tseslint from 'typescript-eslint'

const layer = (files, forbidden, message, more = []) => ({
  files,
  rules: { 'no-restricted-imports': ['error', { patterns: [{ group: forbidden, message }, ...more] }] },
})

/**
 * A format's folder: no other format, no plugin, no CLI, and not the list of all formats
 * (`src/formats/index.ts`, which names every format: importing it would reach the others). That
 * list is `../index.js` from the format's own folder, `../../index.js` one folder down, and so on,
 * while the same words name the format's own `index.ts` one level up: so one block per depth.
 */
const formatLayer = (name, others) =>
  [0, 1, 2, 3].map((depth) =>
    layer(
      [`src/formats/${name}/${'*/'.repeat(depth)}*.ts`],
      [...others.flatMap((other) => [`**/formats/${other}/**`, `${'../'.repeat(depth + 1)}${other}/**`]), '**/plugin/**', '**/cli/**'],
      'A format imports core and the runtime, never another format, the plugin or the CLI.',
      [
        {
          group: ['**/formats/index.js', `${'../'.repeat(depth + 1)}index.js`],
          message:
            'The list of all formats (src/formats/index.ts) names every format: a format never imports it (take the compiler it is given, or make one of its own format).',
        },
      ],
    ),
  )

/** A rule reports through the runner: the selectors that keep it from making a diagnostic itself. */
const ruleReports = [
  {
    selector: "MemberExpression[object.type='ThisExpression'][property.name='code']",
    message: 'A rule reports with report(pointer, message, data): the runner attaches its code.',
  },
  {
    selector: "ImportSpecifier[imported.name='diagnosticAt']",
    message: 'A rule reports with report(pointer, message, data): the runner makes the diagnostic (code, severity, position).',
  },
]

/**
 * Module-level state in a format's code: a Map or WeakMap (a side table keyed by a document or its
 * objects), or a `let`. What one document's check derives lives on its checked value (NATS: the
 * `NatsContext`, src/formats/nats/context.ts), so the model reads exactly what the rules read.
 */
const MODULE_STATE_MESSAGE =
  'No module-level table or variable in a format: a fact about one document lives on its checked value (NatsContext), made on first use. A memo keyed by content alone (a schema text, the bytes digest) belongs in the allow-list of eslint.config.js, with a comment saying why.'
const TABLE = 'NewExpression[callee.name=/^(Map|WeakMap|WeakSet|WeakRef)$/]'
// Made when the module loads: a declaration's initializer (possibly cast), or a static field.
const declared = ['Program > VariableDeclaration', 'Program > ExportNamedDeclaration > VariableDeclaration']
const made = [TABLE, `TSAsExpression > ${TABLE}`, `TSSatisfiesExpression > ${TABLE}`]
const moduleState = [
  ...declared.flatMap((declaration) => made.map((init) => `${declaration} > VariableDeclarator > ${init}`)),
  ...made.map((init) => `PropertyDefinition[static=true] > ${init}`),
  ...declared.map((declaration) => `${declaration}[kind='let']`),
].map((selector) => ({ selector, message: MODULE_STATE_MESSAGE }))

/**
 * NATS files allowed module-level state: memos keyed by content alone (a fixed schema, a schema's
 * JSON text, a file's bytes), the same answer whichever document asks, and a lazily loaded library.
 */
export const NATS_MODULE_STATE_ALLOWED = [
  'src/formats/nats/load.ts',
  'src/formats/nats/rules/standard.ts',
  'src/formats/nats/rules/external-parts.ts',
  'src/formats/nats/rules/binding-types.ts',
  'src/formats/nats/topology/elk-layout.ts',
  // The letters of each alphabet and whether one character set is within another: keyed by the sets' text.
  'src/formats/nats/containment.ts',
]

export default tseslint.config(
  {
    ignores: [
      'dist/**',
      'node_modules/**',
      'test/.tmp/**',
      'bench/.work/**',
      'fixtures/**',
      'test/fixtures/**',
      'test/__snapshots__/**',
      'examples/**/dist/**',
      'examples/**/dist-web/**',
      // Generated sidecars (the plugin writes them; gitignored).
      '**/*.d.yaml.ts',
      '**/*.d.json.ts',
    ],
  },
  js.configs.recommended,
  ...tseslint.configs.recommended,
  {
    languageOptions: {
      globals: {
        console: 'readonly',
        process: 'readonly',
        URL: 'readonly',
        Buffer: 'readonly',
        setTimeout: 'readonly',
        globalThis: 'readonly',
        structuredClone: 'readonly',
      },
    },
    rules: {
      // Generated and document data is typed at its boundary; `any` stays where a value is JSON of any shape.
      '@typescript-eslint/no-explicit-any': 'off',
      '@typescript-eslint/no-unused-vars': ['error', { argsIgnorePattern: '^_', varsIgnorePattern: '^_', caughtErrors: 'none' }],
      '@typescript-eslint/no-non-null-assertion': 'off',
    },
  },
  layer(
    ['src/runtime/**/*.ts'],
    ['**/core/**', '**/formats/**', '**/plugin/**', '**/cli/**'],
    'The runtime is what applications ship: it imports only the runtime.',
  ),
  layer(['src/core/**/*.ts'], ['**/formats/**', '**/plugin/**', '**/cli/**'], 'Core names no format: formats plug in through the ContractFormat interface.'),
  ...formatLayer('benzene', ['nats', 'dasp']),
  ...formatLayer('nats', ['benzene', 'dasp']),
  ...formatLayer('dasp', ['benzene', 'nats']),
  layer(['src/plugin/**/*.ts'], ['**/cli/**'], 'The plugin does not depend on the CLI.'),
  {
    // A rule declares its code and severity once; the runner (src/core/rule-runner.ts) attaches them
    // when the rule calls report(pointer, message, data). No rule makes a diagnostic itself.
    files: ['src/formats/*/rules/**/*.ts'],
    rules: { 'no-restricted-syntax': ['error', ...ruleReports] },
  },
  // NATS keeps no per-document side table at module level (one block for its rules, whose
  // `no-restricted-syntax` list must keep the report selectors too: a later block replaces it).
  {
    files: ['src/formats/nats/**/*.ts'],
    ignores: [...NATS_MODULE_STATE_ALLOWED, 'src/formats/nats/rules/**'],
    rules: { 'no-restricted-syntax': ['error', ...moduleState] },
  },
  {
    files: ['src/formats/nats/rules/**/*.ts'],
    ignores: NATS_MODULE_STATE_ALLOWED,
    rules: { 'no-restricted-syntax': ['error', ...ruleReports, ...moduleState] },
  },
)
