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
    rules: {
      'no-restricted-syntax': [
        'error',
        {
          selector: "MemberExpression[object.type='ThisExpression'][property.name='code']",
          message: 'A rule reports with report(pointer, message, data): the runner attaches its code.',
        },
        {
          selector: "ImportSpecifier[imported.name='diagnosticAt']",
          message: 'A rule reports with report(pointer, message, data): the runner makes the diagnostic (code, severity, position).',
        },
      ],
    },
  },
)
