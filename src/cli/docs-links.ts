/**
 * Where a diagnostic code's documentation is, for the links SARIF rules (`helpUri`) and the
 * language server (`codeDescription.href`) give. One rule, in this order:
 *
 * 1. package.json names a repository (or a homepage on a code host): its web page of
 *    `docs/diagnostics.md` at the default branch (`blob/HEAD`), at the code's anchor;
 * 2. otherwise the `docs/diagnostics.md` beside the running package, as a `file:` URL: a checkout
 *    or a linked workspace has the docs of exactly the code that runs;
 * 3. otherwise (an installed package without its docs) no link: the rule's text still says what
 *    the code means.
 *
 * Never a relative path: SARIF's `helpUri` and LSP's `href` are absolute URIs.
 */
import { existsSync, readFileSync } from 'node:fs'
import { join } from 'node:path'
import { pathToFileURL } from 'node:url'
import { packageRoot } from '../core/package-info.js'
import { codeAnchor } from './code-catalogue.js'

/** What the links read of package.json. */
export interface PackageLinks {
  name?: string
  homepage?: unknown
  repository?: unknown
}

const HOSTS: Record<string, string> = { github: 'github.com', gitlab: 'gitlab.com', bitbucket: 'bitbucket.org' }

/**
 * The web address of a package's repository (`https://github.com/owner/name`), from package.json's
 * `repository` (a URL in any of npm's forms, `owner/name`, `github:owner/name`) or a `homepage` on
 * a code host; undefined when neither says.
 */
export function repositoryWebUrl(pkg: PackageLinks): string | undefined {
  const repository = pkg.repository
  const url =
    typeof repository === 'string' ? repository : typeof repository === 'object' && repository !== null ? (repository as { url?: unknown }).url : undefined
  const fromRepository = typeof url === 'string' ? webUrl(url) : undefined
  if (fromRepository) return fromRepository
  if (typeof pkg.homepage === 'string') {
    const home = webUrl(pkg.homepage.replace(/#.*$/, ''))
    if (home && Object.values(HOSTS).some((host) => home.startsWith(`https://${host}/`))) return home
  }
  return undefined
}

/** `git+https://github.com/o/r.git`, `git@github.com:o/r.git`, `github:o/r`, `o/r` -> `https://github.com/o/r`. */
function webUrl(spec: string): string | undefined {
  const shorthand = /^(?:(github|gitlab|bitbucket):)?([\w.-]+)\/([\w.-]+?)(?:\.git)?$/.exec(spec)
  if (shorthand) return `https://${HOSTS[shorthand[1] ?? 'github']}/${shorthand[2]}/${shorthand[3]}`
  const scp = /^(?:[\w.-]+@)?([\w.-]+):(?!\/\/)([\w./-]+?)(?:\.git)?\/?$/.exec(spec)
  if (scp) return `https://${scp[1]}/${scp[2]}`
  let parsed: URL
  try {
    parsed = new URL(spec.replace(/^git\+/, ''))
  } catch {
    return undefined
  }
  if (!/^(?:https?|git|ssh):$/.test(parsed.protocol) || parsed.hostname === '') return undefined
  const path = parsed.pathname.replace(/\.git$/, '').replace(/\/+$/, '')
  return path === '' ? undefined : `https://${parsed.hostname}${path}`
}

/** The address of docs/diagnostics.md by the rule above (without an anchor), or undefined. */
export function diagnosticsDocUrl(pkg: PackageLinks = ownPackage(), root: string = packageRoot()): string | undefined {
  return docsPageUrl('diagnostics.md', pkg, root)
}

/** The address of a page of docs/ (`diagnostics.md`, `diff.md`) by the rule above (without an anchor), or undefined. */
export function docsPageUrl(page: string, pkg: PackageLinks = ownPackage(), root: string = packageRoot()): string | undefined {
  const repo = repositoryWebUrl(pkg)
  if (repo) {
    const directory = typeof pkg.repository === 'object' && pkg.repository !== null ? (pkg.repository as { directory?: unknown }).directory : undefined
    const folder = typeof directory === 'string' && directory !== '' ? `${directory.replace(/^\/+|\/+$/g, '')}/` : ''
    return `${repo}/blob/HEAD/${folder}docs/${page}`
  }
  const local = join(root, 'docs', page)
  return existsSync(local) ? pathToFileURL(local).href : undefined
}

let diffBase: { url: string | undefined } | undefined

/** The link to a diff rule's section of docs/diff.md (its id is the anchor), or undefined when there are no docs to link to. */
export function diffRuleDocsUrl(rule: string): string | undefined {
  diffBase ??= { url: docsPageUrl('diff.md') }
  return diffBase.url === undefined ? undefined : `${diffBase.url}#${rule}`
}

/** The package's own web page for tools that name their home (SARIF's `informationUri`): its repository, else its npm page. */
export function informationUrl(pkg: PackageLinks = ownPackage()): string {
  return repositoryWebUrl(pkg) ?? `https://www.npmjs.com/package/${pkg.name ?? 'unplugin-contracts'}`
}

let base: { url: string | undefined } | undefined

/** The link to a code's row of docs/diagnostics.md, or undefined when there are no docs to link to. */
export function codeDocsUrl(code: string): string | undefined {
  base ??= { url: diagnosticsDocUrl() }
  return base.url === undefined ? undefined : `${base.url}#${codeAnchor(code)}`
}

function ownPackage(): PackageLinks {
  return JSON.parse(readFileSync(join(packageRoot(), 'package.json'), 'utf8')) as PackageLinks
}
