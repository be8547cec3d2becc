/**
 * SemVer 2.0.0 precedence (section 11) of two versions, for the server-version check of the NATS
 * client: negative when `a` precedes `b`. Build metadata is ignored; a prerelease precedes its
 * release; prerelease identifiers compare numerically when both are numeric, else as ASCII.
 * Undefined when either is not a version. A few lines here rather than the `semver` package: the
 * runtime imports only the runtime.
 */
const VERSION = /^(0|[1-9]\d*)\.(0|[1-9]\d*)\.(0|[1-9]\d*)(?:-([0-9A-Za-z-]+(?:\.[0-9A-Za-z-]+)*))?(?:\+[0-9A-Za-z-]+(?:\.[0-9A-Za-z-]+)*)?$/

export function compareVersions(a: string, b: string): number | undefined {
  const x = VERSION.exec(a)
  const y = VERSION.exec(b)
  if (!x || !y) return undefined
  for (let i = 1; i <= 3; i++) {
    const d = Number(x[i]) - Number(y[i])
    if (d !== 0) return Math.sign(d)
  }
  const [p, q] = [x[4], y[4]]
  if (p === undefined || q === undefined) return p === q ? 0 : p === undefined ? 1 : -1
  const ps = p.split('.')
  const qs = q.split('.')
  for (let i = 0; i < Math.min(ps.length, qs.length); i++) {
    const [m, n] = [ps[i]!, qs[i]!]
    if (m === n) continue
    const numeric = /^\d+$/.test(m) && /^\d+$/.test(n)
    if (numeric) return Math.sign(Number(m) - Number(n))
    if (/^\d+$/.test(m)) return -1
    if (/^\d+$/.test(n)) return 1
    return m < n ? -1 : 1
  }
  return Math.sign(ps.length - qs.length)
}
