/**
 * The declaration (sidecar `.d.ts`) of a NATS module's `interactions`: each interaction's descriptor
 * type names the contract's types for what flows through it, so the executor infers its adapters'
 * and its invocation's types from the descriptor alone (`createExecutor({interaction, ...})`):
 * - `__inputs`: the declared inputs (token inputs as their value types, schema inputs as their types);
 * - `__request`: the request operation's payload (what the responder's handler receives);
 * - `__result`: the result operation's payload (the verifier's and the aggregation's argument, what
 *   the success predicate reads);
 * - `__output`: the aggregation adapter's output schema (what the aggregation adapter returns);
 * - `__branchInput`: the branch manifest's `input` slot (dispatch `branches` and `none`);
 * - `__resultFields`: the result payload without the members its correlation names (operation,
 *   branch, attempt, peer, fence), which the responder sets: what a peer's handler returns.
 * Members are optional and never present at run time: types only.
 */
import { jsString, propertyKey } from '../../core/emit.js'
import type { TokenType } from '../../runtime/nats/tokens.js'
import type { ChannelModel, InteractionModel, NatsModel, OperationModel } from './model.js'
import type { PayloadTypeWriter } from './payload-types.js'

const COMPONENT = '#/components/schemas/'

export interface InteractionTypeContext {
  readonly model: NatsModel
  readonly channelsById: ReadonlyMap<string, ChannelModel>
  readonly payloads: PayloadTypeWriter
  readonly valueType: (type: TokenType | undefined) => string
}

/** The payload type an operation carries: the messages it lists, or every message of its channel. */
function operationPayload(ctx: InteractionTypeContext, op: OperationModel | undefined): string | undefined {
  const channel = op ? ctx.channelsById.get(op.channel) : undefined
  if (!op || !channel) return undefined
  const messages = op.messages ? channel.messages.filter((m) => op.messages!.includes(m.name)) : channel.messages
  if (messages.length === 0) return undefined
  return [...new Set(messages.map((m) => (m.external ? 'unknown' : ctx.payloads.typeOf(m.payload))))].join(' | ')
}

/** A `#/components/schemas/...` reference's type, undefined for anything else. */
function schemaType(ctx: InteractionTypeContext, ref: unknown): string | undefined {
  return typeof ref === 'string' && ref.startsWith(COMPONENT) ? ctx.payloads.typeOf({ $ref: ref }) : undefined
}

/** The top-level payload members the correlation expressions name (`$message.payload#/name`); nested ones are left to the handler. */
function correlatedMembers(correlation: unknown): string[] {
  if (typeof correlation !== 'object' || correlation === null) return []
  const names = new Set<string>()
  for (const key of ['operation', 'branch', 'attempt', 'peer', 'fence']) {
    const expression = (correlation as Record<string, unknown>)[key]
    const match = typeof expression === 'string' ? /^\$message\.payload#\/([^/]+)$/.exec(expression) : null
    if (match) names.add(match[1]!.replace(/~1/g, '/').replace(/~0/g, '~'))
  }
  return [...names]
}

/** The members after `$nats.Interaction & ` for one interaction. O(inputs + the types written). */
export function interactionType(ctx: InteractionTypeContext, it: InteractionModel): string {
  const data = it.data
  const inputs = Object.entries((data['inputs'] ?? {}) as Record<string, { tokenType?: TokenType; schema?: unknown }>).map(
    ([name, input]) => `readonly ${propertyKey(name)}: ${input.tokenType ? ctx.valueType(input.tokenType) : (schemaType(ctx, input.schema) ?? 'unknown')};`,
  )
  const members = [`readonly id: ${jsString(it.id)};`, `readonly __inputs?: { ${inputs.join(' ')} };`]
  const opById = (id: unknown) => (typeof id === 'string' ? ctx.model.operations.find((o) => o.id === id) : undefined)
  const request = operationPayload(ctx, opById(data['requestOperation']))
  if (request) members.push(`readonly __request?: ${request};`)
  const result = operationPayload(ctx, opById(data['resultOperation']))
  if (result) members.push(`readonly __result?: ${result};`)
  const correlated = correlatedMembers(data['correlation'])
  // Distributed over a union of result messages: each message's own members minus the correlated ones (a key-remapping
  // mapped type, not `Omit`: `Omit` over a type with an index signature keeps only the signature).
  if (result)
    members.push(
      `readonly __resultFields?: ${result} extends infer R ? (R extends object ? { [P in keyof R as P extends ${correlated.length > 0 ? correlated.map(jsString).join(' | ') : 'never'} ? never : P]: R[P] } : R) : never;`,
    )
  const aggregation = data['aggregation'] as { adapter?: unknown } | undefined
  const adapter = typeof aggregation?.adapter === 'string' ? ctx.model.adapters.find((a) => a.key === aggregation.adapter) : undefined
  const output = schemaType(ctx, adapter?.outputSchema)
  if (output) members.push(`readonly __output?: ${output};`)
  const dispatch = data['dispatch'] as { branchesInput?: unknown } | undefined
  const manifestInput =
    typeof dispatch?.branchesInput === 'string' ? (data['inputs'] as Record<string, { schema?: unknown }> | undefined)?.[dispatch.branchesInput] : undefined
  const manifest = schemaType(ctx, manifestInput?.schema)
  // The slot's type read off the manifest's element type; `unknown` when the manifest is not an array of objects with `input`.
  if (manifest) members.push(`readonly __branchInput?: NonNullable<${manifest}> extends ReadonlyArray<{ input: infer T }> ? T : unknown;`)
  return `{ ${members.join(' ')} }`
}
