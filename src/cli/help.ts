/**
 * The `contracts` help texts: one overview and one page per command, each with examples a user can
 * paste (docs/cli.md shows the same commands). Kept as data so `--help`, `help <command>` and the
 * usage errors print the same words.
 */
import { packageVersion } from '../core/package-info.js'

export interface CommandHelp {
  /** The usage lines, without the leading `contracts`. */
  readonly usage: readonly string[]
  readonly summary: string
  /** Flag -> what it does. */
  readonly flags: Readonly<Record<string, string>>
  readonly examples: readonly string[]
  readonly notes?: string
}

const BENZENE_SCOPE = {
  '--topics a,b': 'Benzene only: compile just these topics (ids, or id@version).',
  '--include-reserved': 'Benzene only: keep reserved topics in scope.',
  '--names <file.json>':
    'Export names: Benzene keyed by topic or topic@version ({"payments:get-all": "listPayments"}), NATS by channel id ({"note-log": "notes"}).',
}

const CACHE = {
  '--cache-dir <dir>':
    'Keep compiled results in this folder (default: node_modules/.cache/unplugin-contracts of the nearest package); an unchanged contract is not compiled again.',
  '--no-cache': 'Neither read nor write compiled results on disk.',
}

export const COMMANDS: Readonly<Record<string, CommandHelp>> = {
  check: {
    usage: [
      'check <files...> [--json | --format github|sarif] [--watch] [--topics a,b] [--include-reserved] [--names <file.json>] [--cache-dir <dir> | --no-cache]',
    ],
    summary: 'Checks contracts of any format; diagnostics (with code frames) on stderr and one summary line per run.',
    flags: {
      '--json': 'Print {"diagnostics": [...]} on stdout instead of code frames.',
      '--format github': 'Print GitHub Actions annotations (::error file=...,line=...,col=...::) on stdout.',
      '--format sarif': 'Print one SARIF 2.1.0 log on stdout (for code scanning: github/codeql-action/upload-sarif).',
      '--watch': 'Check again whenever a contract or a file it reads changes (Ctrl-C to stop).',
      ...BENZENE_SCOPE,
      ...CACHE,
    },
    examples: [
      'contracts check payments.spec.json',
      'contracts check services/*/asyncapi.yaml --format github',
      'contracts check services/*/asyncapi.yaml --format sarif > contracts.sarif',
      'contracts check fixtures/*.json --watch',
    ],
  },
  diff: {
    usage: [
      'diff <old> <new> [--json | --format github|sarif] [--fail-on breaking|warning] [--audience <kind>] [--ignore <file>]',
      'diff --against <git-ref> [files...] [--json | --format github|sarif] [--fail-on breaking|warning] [--audience <kind>] [--ignore <file>]',
    ],
    summary:
      'Compares two versions of a contract and says who each change breaks: every finding with its rule id, level (breaking, warning when a break can be proven neither way, info) and audiences, grouped by audience. A version with errors is not compared: its diagnostics are printed as check prints them. The rules: docs/diff.md.',
    flags: {
      '--against <git-ref>':
        'Compare the working tree with a git commit (a branch, tag, commit or HEAD~n): the old version of each file, and of every file its compile reads, is read from git. Without files, every contract that differs; one added since is reported as new, one deleted as removed.',
      '--fail-on breaking|warning': 'The lowest level that fails the run (exit status 1); default breaking.',
      '--audience <kind>':
        'Only the findings that break this audience (client, service, publisher, subscriber, requester, responder, deployment, invoker, peer, host, saved-session, everyone); another word is a usage error.',
      '--ignore <file>':
        'The ignore file to apply (default: .contracts-diff-ignore.yaml next to the new file or in a folder above it, up to the project root).',
      '--json': 'Print one JSON document (version 1, described in docs/cli.md) on stdout.',
      '--format github': "Print GitHub Actions annotations on the new file's lines (::error for breaking, ::warning, ::notice for info).",
      '--format sarif': 'Print one SARIF 2.1.0 log on stdout (for code scanning).',
    },
    examples: [
      'contracts diff old/payments.spec.json payments.spec.json',
      'contracts diff --against origin/main',
      'contracts diff --against HEAD~1 services/orders/asyncapi.yaml --audience subscriber --format github',
      'contracts diff --against main --fail-on warning --format sarif > diff.sarif',
    ],
    notes:
      'Exit status 1 means a finding at or above --fail-on (after the ignore file), or a version with errors. An ignore entry past its expires date ignores nothing and is reported.',
  },
  hash: {
    usage: ['hash <file> [--topic <id> [--version <v> | --unversioned] | --topics a,b] [--include-reserved]'],
    summary: 'Prints the Benzene contract hash of a document, of one topic, or of a set of topics.',
    flags: {
      '--topic <id>': 'The hash of one topic (reserved or not).',
      '--version <v>': 'With --topic: the version to take when the topic has several.',
      '--unversioned': 'With --topic: the entry without a version, when the topic also has versioned ones.',
      '--topics a,b': 'The service-level hash over these topics.',
      '--include-reserved': 'Keep reserved topics in scope.',
    },
    examples: ['contracts hash payments.spec.json', 'contracts hash payments.spec.json --topic payments:capture'],
  },
  inspect: {
    usage: ['inspect <file> [--json] [--topics a,b] [--include-reserved] [--names <file.json>]'],
    summary: 'Prints what a contract compiles to: its exports, hashes, subjects and descriptors (--json: the model).',
    flags: { '--json': 'Print the model as JSON on stdout.', ...BENZENE_SCOPE },
    examples: ['contracts inspect payments.spec.json', 'contracts inspect orders/asyncapi.yaml --json | jq .channels'],
  },
  types: {
    usage: ['types <files[?query]...> [--topics a,b] [--include-reserved] [--names <file.json>] [--cache-dir <dir> | --no-cache]'],
    summary:
      "Writes the declaration sidecar (*.d.json.ts, *.d.yaml.ts) next to each contract, as the plugin does; a file given with a query (x.spec.json?topics=a) adds that query import to the contract's -queries.d.ts (the queries it declares already are compiled again and kept). A link or a file unplugin-contracts did not write in their place is left alone (CONTRACTS_WRITE_REFUSED, exit 1).",
    flags: { ...BENZENE_SCOPE, ...CACHE },
    examples: ['contracts types src/contracts/*.spec.json', "contracts types 'src/payments.spec.json?topics=payments:capture'"],
  },
  generate: {
    usage: ['generate --target rust|typescript --out <dir> [--serde] [--clean] [--cache-dir <dir> | --no-cache] <documents...>'],
    summary:
      'Writes, for tools that cannot run a bundler plugin, the TypeScript module and declarations the plugin serves (--target typescript, any format), or a Rust crate from NATS application documents (--target rust: one module per application, std only).',
    flags: {
      '--target rust|typescript': 'What to write.',
      '--out <dir>':
        'The folder to write into (created when missing). All files or none: a link, or a file unplugin-contracts did not write, in the way is refused.',
      '--serde': 'Rust: add payload types behind a cargo feature "serde", off by default.',
      '--clean':
        "Remove the files generated earlier that this run does not write (a document or application no longer given: its .js and .d.ts, or its src/<app>.rs): only files with unplugin-contracts' marker, never through a link. Without it they are listed as stale.",
      ...CACHE,
    },
    examples: [
      'contracts generate --target typescript --out gen payments.spec.json',
      'contracts generate --target rust --out crates/orders orders/asyncapi.yaml',
    ],
  },
  inputs: {
    usage: ['inputs <files...> [--json] [--cache-dir <dir> | --no-cache]'],
    summary:
      'Prints every file the contracts depend on (the contract, a NATS bundle lock and the files it locks, DASP definitions and pins) and every path where a file made later would change them (a bundle lock looked for in each folder above a NATS document, a missing definition or pinned file), one per line, relative to the working directory, sorted: the inputs of a monorepo task (Turborepo, Nx) that builds them.',
    flags: {
      '--json':
        'Print {"inputs": [...], "absent": [...], "contracts": [{"file", "inputs", "absent"}], "diagnostics": [...]} on stdout ("absent": the inputs with no file yet).',
      ...CACHE,
    },
    examples: ['contracts inputs src/contracts/*.spec.json', 'contracts inputs services/orders/asyncapi.yaml --json'],
    notes: 'A contract with errors still lists the files it read; its diagnostics go to stderr and the status is 1.',
  },
  topology: {
    usage: ['topology <documents or bundle folders...> [--format json|mermaid|dot|svg|html] [--out <file>]'],
    summary:
      'Projects NATS application documents (a folder: the documents its bundle.lock.json lists) into the system-wide picture the compiler verified: JSON (default), Mermaid, Graphviz DOT, or a self-contained SVG or HTML page.',
    flags: {
      '--format <f>': 'json (default), mermaid, dot, svg or html.',
      '--out <file>': 'Write the picture to a file instead of stdout (never through a link, never over a file unplugin-contracts did not write).',
    },
    examples: ['contracts topology examples/nats-orders --format mermaid', 'contracts topology examples/nats-orders --format html --out topology.html'],
  },
  lock: {
    usage: ['lock <bundle folder or bundle.lock.json> [--check] [--json]'],
    summary:
      "Fills in every digest a NATS bundle pins (each import's and each external artifact's or workflow's sha256, imported documents first) in place, changing nothing else in the documents, then writes bundle.lock.json with every file's digest. All files or none: a bundle that cannot be locked (a file that does not parse, a missing or linked file, an import cycle) prints its diagnostics and nothing is written.",
    flags: {
      '--check': 'Write nothing: list every stale digest (file:line:column, the old and the new one) and exit 1, or exit 0 when all are current (for CI).',
      '--json': 'Print {"diagnostics": [...]} on stdout (with --check: the stale digests, NATS_LOCK_STALE with data {path, old, new}).',
    },
    examples: ['contracts lock services', 'contracts lock services/bundle.lock.json --check'],
    notes:
      'It reads only the bundle folder and writes only files of it that it read, only while they still have the bytes it read, and never through a link. With --check, exit status 1 means a digest is stale.',
  },
  lsp: {
    usage: ['lsp [--stdio]'],
    summary:
      "A language server (LSP 3.17) on stdin and stdout for editors: the diagnostics of each open contract as it is edited (unsaved text, a NATS bundle read from its lock), with links to each code's docs; hover on a $ref or a NATS address placeholder. See docs/editors.md.",
    flags: { '--stdio': 'Speak LSP on stdin and stdout (the only transport, and the default; accepted because editor clients pass it).' },
    examples: ['contracts lsp', 'npx contracts lsp --stdio'],
    notes:
      'It runs until the editor ends the session: exit status 0 after the shutdown request and the exit notification, 1 when the editor exits or goes away without a shutdown.',
  },
  nats: {
    usage: [
      'nats provision <documents...> --server <url> [--creds <file>] [--dry-run] [--update [--allow-data-loss]] [--adopt] [--allow-older-server] [--json]',
    ],
    summary:
      "Creates the contract-owned JetStream streams and consumers that are missing, marked as this contract's, and reports every field that differs; external resources and resources without this contract's mark are never changed.",
    flags: {
      '--server <url>': 'The server (default: NATS_URL).',
      '--creds <file>': 'A credentials file (default: NATS_CREDS).',
      '--dry-run': 'Print the plan only.',
      '--update': "Change resources that differ and carry this contract's mark (a change that loses data is refused).",
      '--allow-data-loss': 'With --update: apply changes the plan marks LOSES DATA too (lower limits, dropped subjects, other retention/storage).',
      '--adopt': "Mark contract-owned resources that carry no mark as this contract's (never one marked by another contract).",
      '--allow-older-server': 'Go on when the server is older than the contract requires.',
      '--json': 'Print the plan and results as JSON.',
    },
    examples: [
      'contracts nats provision orders/asyncapi.yaml --server nats://127.0.0.1:4222 --dry-run',
      'contracts nats provision orders/asyncapi.yaml --server nats://127.0.0.1:4222 --update',
    ],
    notes:
      "Provisioning exits 1 while the server still differs from a contract (a difference not applied, a change refused: not this contract's mark, or it loses data, or the server refused it) and 3 when the server does not answer.",
  },
}

/** The flags each command takes, as `parseArgs` names them (from the help pages, so the two cannot drift). */
export function commandFlags(command: string): readonly string[] | undefined {
  const help = COMMANDS[command]
  // One name each: the help may describe a flag on two lines (`--format github`, `--format sarif`).
  return help && [...new Set(Object.keys(help.flags).map((flag) => /^--([a-z-]+)/.exec(flag)![1]!))]
}

const EXIT = 'Exit status: 0 no errors, 1 a contract has errors, 2 usage error.'

export const OVERVIEW = `contracts ${packageVersion}: check contracts, print their hashes, write their types.

Usage:
${Object.values(COMMANDS)
  .flatMap((c) => c.usage)
  .map((u) => `  contracts ${u}`)
  .join('\n')}
  contracts --version
  contracts help <command>     (or: contracts <command> --help)

${EXIT}`

export function commandHelp(command: string): string {
  const help = COMMANDS[command]!
  const width = Math.max(...Object.keys(help.flags).map((f) => f.length))
  const flags = Object.entries(help.flags).map(([flag, text]) => `  ${flag.padEnd(width)}  ${text}`)
  return [
    `Usage:\n${help.usage.map((u) => `  contracts ${u}`).join('\n')}`,
    help.summary,
    ...(flags.length ? [`Flags:\n${flags.join('\n')}`] : []),
    `Examples:\n${help.examples.map((e) => `  ${e}`).join('\n')}`,
    ...(help.notes ? [help.notes] : []),
    EXIT,
  ].join('\n\n')
}
