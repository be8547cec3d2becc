/**
 * The Rust toolchain for the Rust target's tests: `cargo` (rustup's or Debian's, which `.ci/run`
 * installs when missing), with `rustfmt` and `clippy` when present. Where there is no cargo the
 * tests say so loudly and skip.
 */
import { execFileSync, spawnSync } from 'node:child_process'
import { mkdirSync, writeFileSync } from 'node:fs'
import { homedir } from 'node:os'
import { join } from 'node:path'

const candidates = [join(homedir(), '.cargo/bin/cargo'), 'cargo', '/usr/bin/cargo']
export const CARGO = candidates.find((c) => {
  try {
    execFileSync(c, ['--version'], { stdio: 'ignore' })
    return true
  } catch {
    return false
  }
})
if (!CARGO) console.warn('\n*** cargo is not installed: the Rust target tests are SKIPPED (apt-get install rustc cargo; .ci/run does) ***\n')

/** Whether `cargo <subcommand>` is available (fmt, clippy). */
export function cargoHas(subcommand: string): boolean {
  return CARGO !== undefined && spawnSync(CARGO, [subcommand, '--version'], { stdio: 'ignore' }).status === 0
}

/** `rustfmt` beside cargo (rustup) or on the PATH (Debian's package), if installed. */
export const RUSTFMT = [CARGO ? join(CARGO, '..', 'rustfmt') : undefined, 'rustfmt', '/usr/bin/rustfmt'].find((c) => {
  if (!c || (c.includes('/') && CARGO === 'cargo')) return false
  try {
    execFileSync(c, ['--version'], { stdio: 'ignore' })
    return true
  } catch {
    return false
  }
})

/**
 * The target directory of every crate built with `--features serde` (rust-target, rust-serde-widths,
 * rust-hostile): serde, serde_derive, serde_json and syn are compiled once per run for all of them
 * (about 30 CPU seconds each time on the 2-core machine), not once per test file. Cargo's lock on
 * the directory makes two files that build at the same moment take turns.
 */
export const SERDE_TARGET = join(import.meta.dirname, '..', '.tmp', 'rust-target-build', 'serde')

/**
 * Test builds without debug information or incremental state: neither is read by a test (no
 * debugger, every build starts from a fresh target directory), and together they are about a third
 * of a debug build's compile time. The code, warnings and lints are the same.
 */
const QUICK_BUILDS = { CARGO_PROFILE_DEV_DEBUG: '0', CARGO_PROFILE_TEST_DEBUG: '0', CARGO_INCREMENTAL: '0' }

/** Runs cargo in `dir`, offline, with a shared target directory; returns status and output. */
export function cargo(args: string[], dir: string, targetDir: string): { status: number | null; output: string } {
  const r = spawnSync(CARGO!, args, {
    cwd: dir,
    encoding: 'utf8',
    env: { ...process.env, ...QUICK_BUILDS, CARGO_TARGET_DIR: targetDir, CARGO_NET_OFFLINE: 'true' },
  })
  return { status: r.status, output: r.stdout + r.stderr }
}

/** Debian's vendored crates (serde, serde_json), which `.ci/run` installs: the registry an offline build reads. */
export const DEBIAN_CRATES = '/usr/share/cargo/registry'

/**
 * Writes a generated crate's files under `dir`, with a `.cargo/config.toml` that replaces crates.io
 * by Debian's vendored crates (an offline build finds serde there).
 */
export function writeCrate(dir: string, files: ReadonlyArray<{ path: string; text: string }>): void {
  const all = [
    ...files,
    { path: '.cargo/config.toml', text: `[source.crates-io]\nreplace-with = "debian"\n\n[source.debian]\ndirectory = "${DEBIAN_CRATES}"\n` },
  ]
  for (const f of all) {
    const path = join(dir, ...f.path.split('/'))
    mkdirSync(join(path, '..'), { recursive: true })
    writeFileSync(path, f.text)
  }
}
