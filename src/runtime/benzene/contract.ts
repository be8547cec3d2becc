/** The projection a module's `contractHash` covers (Benzene Contract Document §6.4: only equal projections are comparable). */
export type ContractProjection = { readonly kind: 'whole-service' } | { readonly kind: 'service-level'; readonly topics: readonly string[] }

/** A generated module's `contract` export. */
export interface ContractInfo<H extends string = `sha256:${string}`> {
  readonly hash: H
  readonly projection: ContractProjection
}

export function createContract<H extends string>(hash: H, projection: ContractProjection): ContractInfo<H> {
  const frozen =
    projection.kind === 'service-level'
      ? Object.freeze({ kind: projection.kind, topics: Object.freeze([...projection.topics]) })
      : Object.freeze({ kind: projection.kind })
  return Object.freeze({ hash, projection: frozen })
}
