import { deepFreeze } from './deep-freeze.js'
import type { Validator } from './validation.js'

/**
 * A validator shared by every importer of a module reports its errors ajv's way, on itself
 * (`errors`). Sealed, that member cannot be made an accessor or removed by one importer to hide or
 * forge another's errors (it stays a plain writable value the validator sets), and the errors it
 * holds are frozen, so no importer can change what the next reader of them sees.
 */
export function sealErrors<V extends Validator>(validate: V): V {
  Object.defineProperty(validate, 'errors', { value: null, writable: true, enumerable: true, configurable: false })
  return validate
}

/** What a sealed validator sets `errors` to: null, or the errors frozen (each one and all they hold). */
export function frozenErrors<E>(errors: E[] | null | undefined): readonly E[] | null {
  return errors === null || errors === undefined ? null : deepFreeze(errors)
}

const SEALED = new WeakSet<Validator>()

/**
 * `validate` as one whose `errors` are sealed: itself when it is one (the generated validators and
 * the interpreter's are), else a validator calling it (ajv's standalone code sets its own `errors`)
 * that keeps a frozen copy of what it set.
 */
export function sealedValidator(validate: Validator): Validator {
  if (SEALED.has(validate)) return validate
  const sealed = sealErrors(((data: unknown) => {
    const valid = validate(data)
    sealed.errors = valid ? null : frozenErrors(validate.errors ? [...validate.errors] : [])
    return valid
  }) as Validator)
  SEALED.add(sealed)
  return sealed
}

/** Marks a validator made sealed (`sealErrors`, frozen errors on every call) so that `sealedValidator` keeps it as it is. */
export function markSealed<V extends Validator>(validate: V): V {
  SEALED.add(validate)
  return validate
}
