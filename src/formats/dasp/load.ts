import { DASP_LOAD_CODES, type DaspLoadCode } from './codes.js'
import { append } from '../../core/append.js'
import { dirname, isAbsolute, resolve } from 'node:path'
import { declaredDiagnostics, type Diagnostic } from '../../core/diagnostics.js'
import type { InputHost } from '../../core/format.js'
import { InputError } from '../../core/input-host.js'
import { isObject } from '../../runtime/shared/json-value.js'
export { isObject }
import { joinPointer } from '../../runtime/shared/json-pointer.js'
import { parseJsonSource, readPastParse, type JsonSource } from '../../core/json-source.js'
import { MANIFEST_SHAPE, shapeProblems } from './shapes.js'

export interface LoadedJson {
  file: string
  source: JsonSource
  sha256: string
}

/**
 * The selection, its definitions (by the index in `definitions`), and each pin manifest checked.
 * What reading found (a definition that cannot be read, a pin that does not match) is carried in
 * `problems` and reported by `check` with the rules' verdicts, not instead of them: one unreadable
 * definition must not hide what is wrong elsewhere. `unreadable` lists the `definitions` entries
 * that gave no definition (a rule that would need one of them to decide skips).
 */
export interface DaspInput {
  selection: LoadedJson
  definitions: Array<{ index: number; loaded: LoadedJson }>
  problems: Diagnostic[]
  unreadable: number[]
}

/** Reading's diagnostics, at their codes' declared severities. */
const loadDiagnostic = declaredDiagnostics(DASP_LOAD_CODES)

const report = (
  diagnostics: Diagnostic[],
  where: { file: string; source?: JsonSource },
  code: DaspLoadCode,
  pointer: string,
  message: string,
  data?: Record<string, unknown>,
) => {
  diagnostics.push(loadDiagnostic({ file: where.file, locate: where.source?.locate }, code, pointer, message, data))
}

/** A JSON file read, with its reading's errors; unreadable: the errors alone. A key mistake (a duplicate key) is read past (codes.ts READ_PAST). */
async function readJson(host: InputHost, file: string): Promise<{ loaded: LoadedJson; diagnostics: Diagnostic[] } | Diagnostic[]> {
  const read = await host.read(file)
  const parsed = parseJsonSource(file, read.text)
  const { source, diagnostics } = parsed
  return readPastParse(parsed) ? { loaded: { file, source, sha256: read.sha256 }, diagnostics } : diagnostics
}

/** A local path (relative to `from`), never a URL: identifiers are not locations. */
function localPath(from: string, path: string): string | undefined {
  if (/^[a-z][a-z0-9+.-]*:/i.test(path) || isAbsolute(path) || path.includes('\\')) return undefined
  return resolve(dirname(from), path)
}

export async function loadDasp(file: string, host: InputHost): Promise<{ input?: DaspInput; diagnostics: Diagnostic[] }> {
  const read = await readJson(host, file)
  if (Array.isArray(read)) return { diagnostics: read }
  const selection = read.loaded
  const diagnostics: Diagnostic[] = [...read.diagnostics]
  const input: DaspInput = { selection, definitions: [], problems: diagnostics, unreadable: [] }
  const list = isObject(selection.source.value) && Array.isArray(selection.source.value.definitions) ? selection.source.value.definitions : []
  for (let i = 0; i < list.length; i++) {
    const entry = list[i]
    const pointer = joinPointer('', 'definitions', i)
    // A non-string entry is the selection's shape problem (DASP_SHAPE), reported there once.
    if (typeof entry !== 'string') {
      input.unreadable.push(i)
      continue
    }
    const path = localPath(file, entry)
    if (!path) {
      report(
        diagnostics,
        selection,
        'DASP_DEFINITION_SOURCE',
        pointer,
        `Definition ${JSON.stringify(entry)} is not a local relative path; definitions come only from files listed here, and nothing is fetched.`,
      )
      input.unreadable.push(i)
      continue
    }
    const kind = await host.kind(path)
    if (kind !== 'file') {
      report(
        diagnostics,
        selection,
        'DASP_DEFINITION_SOURCE',
        pointer,
        kind === 'missing'
          ? `Definition file ${entry} does not exist.`
          : `Definition ${entry} is ${kind === 'symlink' ? 'a symbolic link' : 'not a regular file'}; definitions are plain files beside the selection.`,
      )
      input.unreadable.push(i)
      continue
    }
    let loaded: Awaited<ReturnType<typeof readJson>>
    try {
      loaded = await readJson(host, path)
    } catch (error) {
      // Outside the selection's folder tree, or unreadable: said at the entry, nothing of it shown.
      if (!(error instanceof InputError)) throw error
      report(diagnostics, selection, 'DASP_DEFINITION_SOURCE', pointer, `Definition ${entry} cannot be read: ${error.diagnostic.message}`)
      input.unreadable.push(i)
      continue
    }
    if (Array.isArray(loaded)) {
      append(diagnostics, loaded)
      input.unreadable.push(i)
    } else {
      append(diagnostics, loaded.diagnostics)
      input.definitions.push({ index: i, loaded: loaded.loaded })
      await checkPin(host, loaded.loaded, diagnostics)
    }
  }
  for (const key of ['core', 'profile', 'binding'] as const) {
    const ref = isObject(selection.source.value) ? selection.source.value[key] : undefined
    if (isObject(ref) && isObject(ref.content)) await checkManifestPin(host, selection, joinPointer('', key, 'content'), ref.content, diagnostics)
  }
  // Reported by `check`, together with the rules (see DaspInput).
  return { input, diagnostics: [] }
}

async function checkPin(host: InputHost, definition: LoadedJson, diagnostics: Diagnostic[]): Promise<void> {
  const value = definition.source.value
  if (isObject(value) && isObject(value.content)) await checkManifestPin(host, definition, '/content', value.content, diagnostics)
}

/** A SHA-256 digest as 64 hex digits, in either case: `AB…` and `ab…` are one digest (computed digests are lower case). */
export const isDigest = (value: unknown): value is string => typeof value === 'string' && /^[0-9a-fA-F]{64}$/.test(value)

/**
 * A `sha256-manifest` pin: the manifest's exact bytes hash to the pin, and every file the manifest
 * lists that exists locally hashes to its listed digest.
 */
async function checkManifestPin(host: InputHost, owner: LoadedJson, pointer: string, pin: Record<string, unknown>, diagnostics: Diagnostic[]): Promise<void> {
  if (pin.kind !== 'sha256-manifest' || typeof pin.manifest !== 'string' || typeof pin.sha256 !== 'string') return
  const path = localPath(owner.file, pin.manifest)
  if (!path || (await host.kind(path)) !== 'file') {
    report(
      diagnostics,
      owner,
      'DASP_PIN_MISMATCH',
      joinPointer(pointer, 'manifest'),
      `Manifest ${pin.manifest} is not a local file; a pin must be checkable offline.`,
    )
    return
  }
  if (!isDigest(pin.sha256)) {
    report(diagnostics, owner, 'DASP_PIN_MISMATCH', joinPointer(pointer, 'sha256'), `${JSON.stringify(pin.sha256)} is not a SHA-256 digest (64 hex digits).`)
    return
  }
  const read = await host.read(path)
  if (read.sha256 !== pin.sha256.toLowerCase()) {
    report(
      diagnostics,
      owner,
      'DASP_PIN_MISMATCH',
      joinPointer(pointer, 'sha256'),
      `The manifest's bytes hash to ${read.sha256}, not to the pinned ${pin.sha256}.`,
      { manifest: pin.manifest, actual: read.sha256 },
    )
    return
  }
  const { source, diagnostics: parse } = parseJsonSource(path, read.text)
  // A manifest names "the required files and their digests" (DASP Extension Contracts, content
  // references): a closed { algorithm, files } with at least one file; one with none pins nothing.
  const problems = parse.length > 0 ? [] : shapeProblems(MANIFEST_SHAPE, source.value)
  if (parse.length > 0 || problems.length > 0) {
    report(
      diagnostics,
      owner,
      'DASP_PIN_MISMATCH',
      joinPointer(pointer, 'manifest'),
      'A manifest is { "algorithm": "sha256", "files": { "<path>": "<64 hex>", ... } } with at least one file, and nothing else.',
    )
    for (const problem of problems) report(diagnostics, { file: path, source }, 'DASP_PIN_MISMATCH', problem.pointer, problem.message)
    return
  }
  const files = (source.value as { files: Record<string, unknown> }).files
  for (const [rel, digest] of Object.entries(files)) {
    const target = localPath(path, rel)
    const at = joinPointer('/files', rel)
    const mismatch = (message: string, data?: Record<string, unknown>) =>
      report(diagnostics, { file: path, source }, 'DASP_PIN_MISMATCH', at, message, { file: rel, ...data })
    if (!target) {
      mismatch(`${rel} is not a local relative path; a pin lists files beside its manifest.`)
      continue
    }
    if (!isDigest(digest)) {
      mismatch(`The digest listed for ${rel}, ${JSON.stringify(digest)}, is not a SHA-256 digest (64 hex digits).`)
      continue
    }
    // A listed file that is absent locally is not checked (it may live elsewhere); anything present
    // must be a regular file: a symlink or a FIFO in its place would otherwise skip the pin.
    const kind = await host.kind(target)
    if (kind === 'missing') continue
    if (kind !== 'file') {
      mismatch(`${rel} is ${kind === 'symlink' ? 'a symbolic link' : 'not a regular file'}; a pin covers regular files only.`)
      continue
    }
    try {
      const bytes = await host.read(target)
      if (bytes.sha256 !== digest.toLowerCase()) mismatch(`${rel} hashes to ${bytes.sha256}, not to the listed ${String(digest)}.`)
    } catch (error) {
      if (!(error instanceof InputError)) throw error
      mismatch(`${rel} cannot be read: ${error.diagnostic.message}`)
    }
  }
}
