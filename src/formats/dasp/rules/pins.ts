import { isDigest, isObject } from '../load.js'
import { isIdentityUri, REF_KEYS } from './identity.js'
import { daspRule } from './rule.js'

/** Complexity (each rule here, worst case on any input under the size limits): one pass over the selected contracts and each definition's content and supports. */

/** A full commit id; hex in either case, as git reads it. */
const HEX40 = /^[0-9a-fA-F]{40}$/

/**
 * git's scp-like address of a repository, `[user@]host:path` (what `git remote get-url` prints for
 * an SSH clone: `git@github.com:DASP-Protocol/dasp.git`): git reads it so only when no slash comes
 * before the first colon, and the path after the colon is not `//...` (that would be a URL).
 */
// The user and host start with a letter or digit: never `-`, which a command line would take for an option.
// The path holds no white space, control, format (a bidi override, a zero-width space) or separator character.
const SCP_LIKE = /^(?:[A-Za-z0-9][A-Za-z0-9._~%!$&'()*+,;=-]*@)?(?:[A-Za-z0-9][A-Za-z0-9.-]*|\[[0-9A-Fa-f:.]+\]):(?!\/\/)[^\p{C}\p{Z}]+$/u

/** A repository's identity in a git-commit pin: an absolute URI, or git's scp-like address. */
const isRepository = (value: unknown): boolean => isIdentityUri(value) || (typeof value === 'string' && SCP_LIKE.test(value))

/** Why a content pin is not sufficient, or undefined. */
export function pinProblem(pin: unknown): string | undefined {
  if (typeof pin === 'string') return `${JSON.stringify(pin)} is a name, not a pin: a URI, draft name, branch or package version alone does not pin content`
  if (!isObject(pin)) return 'a pin is a sha256-manifest or git-commit object'
  if (pin.kind === 'sha256-manifest') {
    if (typeof pin.manifest !== 'string' || !isDigest(pin.sha256)) return 'a sha256-manifest pin has a manifest path and a 64-hex sha256'
    return undefined
  }
  if (pin.kind === 'git-commit') {
    if (!isRepository(pin.repository) || !HEX40.test(String(pin.commit)))
      return 'a git-commit pin names its repository and a full 40-hex commit (not a branch or tag)'
    return undefined
  }
  return `pin kind ${JSON.stringify(pin.kind)} is not sha256-manifest or git-commit`
}

export const pinRule = daspRule({
  code: 'DASP_PIN_INSUFFICIENT',
  description: 'A content reference that is not a pin: a URI, draft name, branch or package version alone, or a malformed sha256-manifest or git-commit pin.',
  check(ctx, report) {
    for (const key of REF_KEYS) {
      const ref = ctx.selection[key]
      if (isObject(ref) && 'content' in ref) {
        const problem = pinProblem(ref.content)
        if (problem) report(`/${key}/content`, `${problem}.`)
      }
    }
    for (const d of ctx.definitions) {
      if ('content' in d.value) {
        const problem = pinProblem(d.value.content)
        if (problem) report.in(d.file, '/content', `${problem}.`)
      }
      const supports = isObject(d.value.supports) ? d.value.supports : {}
      for (const key of ['core', 'profiles', 'bindings']) {
        const list = supports[key]
        if (Array.isArray(list))
          list.forEach((ref: unknown, i: number) => {
            // A malformed entry is the shape's problem; only a readable one's pin is judged here.
            const problem = isObject(ref) && 'content' in ref ? pinProblem(ref.content) : undefined
            if (problem) report.in(d.file, `/supports/${key}/${i}/content`, `${problem}.`)
          })
      }
    }
  },
})
