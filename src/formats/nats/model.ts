import type { JsonSource } from '../../core/json-source.js'
import type { TemplateToken } from '../../runtime/nats/subjects.js'
import type { TokenType } from '../../runtime/nats/tokens.js'
import type { MessageModel } from './message-schemas.js'
import type { ValidatorPlan } from './validator-plan.js'

export interface SourceLink {
  /** Relative to the bundle root (or the document's folder): the same in every checkout. */
  file: string
  pointer: string
  line: number
  column: number
}

export interface ChannelModel {
  id: string
  exportName: string
  address?: string
  tokens?: TemplateToken[]
  /** Placeholder -> token type name. */
  parameters: Record<string, string>
  filters: Array<{ name: string; template: string; tokens: TemplateToken[] }>
  publisherIdentity?: { kind: 'subject-permission'; peerParameter: string }
  /** The channel's messages, in name order, with their payload schemas. */
  messages: MessageModel[]
  /** The standard channel's `description` (or `summary`), for generated documentation. */
  description?: string
  source: SourceLink
}

export interface OperationModel {
  id: string
  action: 'send' | 'receive'
  channel: string
  api: 'core' | 'jetstream'
  kind: 'publish' | 'subscribe'
  confirmation?: 'none' | 'stream-ack'
  stream?: string
  consumer?: string
  /** The queue group of the standard NATS operation binding. */
  queue?: string
  requestReply?: { routing: 'native-inbox'; completion: 'first-response'; timeoutMs: number; replyChannel?: string }
  /**
   * The names of its channel's messages the operation lists (`operation.messages`), in name order,
   * when it lists fewer than all of them: it carries those only. Absent: every message of the channel.
   */
  messages?: string[]
  source: SourceLink
}

export interface NativeModel {
  key: string
  authority: 'contract' | 'external'
  /** For consumers: the local stream key. */
  stream?: string
  config: Record<string, unknown>
  artifact?: { path: string; sha256: string; pointer: string }
  source: SourceLink
}

export interface AdapterModel {
  key: string
  kind: string
  version: string
  inputSchema: string
  outputSchema: string
  description?: string
  source: SourceLink
}

export interface InteractionModel {
  id: string
  /** The channel export whose subject requests are rendered on, when there is a request. */
  requestChannelExport?: string
  /** The request payload schema, when the interaction validates payloads at run time. */
  payloadSchema?: unknown
  data: Record<string, unknown>
  source: SourceLink
}

export interface PipelineModel {
  key: string
  data: Record<string, unknown>
  source: SourceLink
}

export interface WorkflowModel {
  key: string
  data: Record<string, unknown>
  source: SourceLink
}

/** The normalized model of one application document: what generation and `contracts inspect` use. */
export interface NatsModel {
  file: string
  contract: { id: string; version: string; profile: '0.2.0-draft'; digest: string }
  deployment: { binding: string; minimumServerVersion: string }
  /** `imports.<alias>`, in alias order. */
  imports: Array<{ alias: string; contract: string; version: string; path: string; sha256: string }>
  /** `links`, each end as `{contract, operation}` (a local operation named with this contract's id), in document order. */
  links: Array<{ send: { contract: string; operation: string }; receive: { contract: string; operation: string } }>
  tokenTypes: Record<string, TokenType>
  channels: ChannelModel[]
  operations: OperationModel[]
  streams: NativeModel[]
  consumers: NativeModel[]
  adapters: AdapterModel[]
  interactions: InteractionModel[]
  pipelines: PipelineModel[]
  workflows: WorkflowModel[]
  /** Where the profile object (`x-nats-contract`) is: the application's backlink. */
  source: SourceLink
  /** `info.description`, for generated documentation. */
  description?: string
  /** `components.schemas` of the document, for payload validators. */
  schemas: Record<string, unknown>
  /**
   * How each payload the module validates is checked, as decided in check (validator-plan.ts):
   * generation assembles the validators from it. Not data for tools: `contracts inspect` leaves it out.
   */
  validatorPlan: ValidatorPlan
  /** Option `validators`: `'code'` when the validators are generated functions (absent: the schema interpreter's data). Not data for tools either. */
  validators?: 'code'
  /**
   * The document as its compile parsed it, so `contracts diff` reads and locates it without parsing
   * the text again (diff/source.ts). Its file, text, value, line index and the fast YAML path's
   * collection starts only: a source's `locate` may hold a syntax tree of the whole document, and
   * compiled models are kept in the compiler's cache. Non-enumerable (set by buildNatsModel):
   * nothing that lists the model's members shows it; absent on a model made by hand.
   */
  readonly parsed?: ParsedDocument
}

/** What `NatsModel.parsed` keeps of the main document's source. */
export type ParsedDocument = Pick<JsonSource, 'file' | 'text' | 'value' | 'lines' | 'collectionStart'>
