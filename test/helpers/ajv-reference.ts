/**
 * ajv as a property test's reference, one instance for all of the property's runs. A new instance
 * compiles the validator of ajv's own meta-schema before its first compile (about 7 ms on the 2-core
 * machine, most of what a small generated schema costs), so an instance per run paid that hundreds of
 * times a file. Each run's schemas are compiled from fresh copies (nothing compiled in an earlier run
 * is reused) and removed from the instance, `$id` included, before the next run's are added: a
 * reference to `defs#/...` always reads the run's own definitions.
 */
import type { Ajv, AnySchema, ValidateFunction } from 'ajv'

/** Compiles `root` with `shared` added beside it (schemas with an `$id` its references name), after removing the previous call's. */
export type PerRunReference = (root: AnySchema, ...shared: object[]) => ValidateFunction

export function perRunReference(ajv: Ajv): PerRunReference {
  let previous: object[] = []
  return (root, ...shared) => {
    for (const schema of previous) ajv.removeSchema(schema)
    const copy = typeof root === 'boolean' ? root : { ...root }
    previous = [...shared, ...(typeof copy === 'boolean' ? [] : [copy])]
    for (const schema of shared) ajv.addSchema(schema)
    return ajv.compile(copy)
  }
}
