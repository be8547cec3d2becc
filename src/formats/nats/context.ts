import type { Diagnostic } from '../../core/diagnostics.js'
import { joinPointer } from '../../core/json-pointer.js'
import { isEmptyLanguage, type TokenType } from '../../runtime/tokens.js'
import type { TemplateToken } from '../../runtime/subjects.js'
import { parseAddress } from './address.js'
import { isObject } from './document.js'
import { profileOf, reporter, type LoadedFile, type NatsInput } from './load.js'
import { tokenTypeProblem } from './token-types.js'

export interface ChannelInfo {
  id: string
  address?: string
  /** The parsed address, when it is a valid template. */
  tokens?: TemplateToken[]
  /** Placeholder -> token type name, from the profile. */
  parameters: Record<string, string>
}

/** What every NATS rule reads: the input, helpers to report, and facts derived once. */
export class NatsContext {
  readonly diagnostics: Diagnostic[] = []
  readonly doc: Record<string, unknown>
  readonly profile: Record<string, unknown>
  private readonly reportAt = reporter(this.diagnostics)

  constructor(readonly input: NatsInput) {
    this.doc = (isObject(input.main.source.value) ? input.main.source.value : {}) as Record<string, unknown>
    this.profile = profileOf(this.doc) ?? {}
  }

  get main(): LoadedFile {
    return this.input.main
  }

  report(code: string, pointer: string, message: string, data?: Record<string, unknown>): void {
    this.reportAt(this.main.file, this.main.source, code, pointer, message, data)
  }

  reportIn(file: LoadedFile, code: string, pointer: string, message: string, data?: Record<string, unknown>): void {
    this.reportAt(file.file, file.source, code, pointer, message, data)
  }

  section(name: string): Record<string, unknown> {
    const value = this.profile[name]
    return isObject(value) ? value : {}
  }

  standard(name: 'channels' | 'operations'): Record<string, unknown> {
    const value = this.doc[name]
    return isObject(value) ? value : {}
  }

  private types?: Record<string, TokenType>
  /** The token types that are well defined and non-empty. */
  get tokenTypes(): Record<string, TokenType> {
    if (!this.types) {
      this.types = Object.create(null) as Record<string, TokenType>
      for (const [name, def] of Object.entries(this.section('tokenTypes'))) {
        if (tokenTypeProblem(def) === undefined && !isEmptyLanguage(def as TokenType)) this.types[name] = normalizeTokenType(def as TokenType)
      }
    }
    return this.types
  }

  private channelInfo?: Map<string, ChannelInfo>
  /** Standard channels, with their profile parameters. */
  get channels(): Map<string, ChannelInfo> {
    if (!this.channelInfo) {
      this.channelInfo = new Map()
      const profiled = this.section('channels')
      for (const [id, channel] of Object.entries(this.standard('channels'))) {
        if (!isObject(channel)) continue
        const address = typeof channel.address === 'string' ? channel.address : undefined
        const parsed = address === undefined ? undefined : parseAddress(address)
        const profile = isObject(profiled[id]) ? (profiled[id] as Record<string, unknown>) : {}
        const parameters = isObject(profile.parameters) ? (Object.fromEntries(Object.entries(profile.parameters).filter(([, v]) => typeof v === 'string')) as Record<string, string>) : {}
        this.channelInfo.set(id, { id, ...(address === undefined ? {} : { address }), ...(parsed && 'tokens' in parsed ? { tokens: parsed.tokens } : {}), parameters })
      }
    }
    return this.channelInfo
  }

  /**
   * The token types of a channel's placeholders, when every placeholder of its address has a
   * defined, valid type (otherwise the rules that report why have their say, and the language
   * rules skip the channel).
   */
  channelTypes(channel: ChannelInfo): Record<string, TokenType> | undefined {
    const out = Object.create(null) as Record<string, TokenType>
    for (const [param, typeName] of Object.entries(channel.parameters)) {
      const type = this.tokenTypes[typeName]
      if (!type) return undefined
      out[param] = type
    }
    for (const token of channel.tokens ?? []) if (typeof token !== 'string' && !out[token.param]) return undefined
    return out
  }

  /** The standard channel id an operation or reference names (`{$ref: '#/channels/<id>'}`). */
  channelOf(operation: unknown): string | undefined {
    return refId(isObject(operation) ? operation.channel : undefined, '#/channels/')
  }

  /** The channel a standard operation uses, when it names one of this document. */
  operationChannel(operationId: unknown): ChannelInfo | undefined {
    const channelId = typeof operationId === 'string' ? this.channelOf(this.standard('operations')[operationId]) : undefined
    return channelId === undefined ? undefined : this.channels.get(channelId)
  }

  pointer(...tokens: Array<string | number>): string {
    return joinPointer('', ...tokens)
  }
}

export function refId(value: unknown, prefix: string): string | undefined {
  const ref = isObject(value) && typeof value.$ref === 'string' ? value.$ref : undefined
  if (!ref?.startsWith(prefix)) return undefined
  const id = ref.slice(prefix.length)
  return id.includes('/') ? undefined : id.replace(/~1/g, '/').replace(/~0/g, '~')
}

/** Only the members the seed defines, in a fixed order. */
function normalizeTokenType(type: TokenType): TokenType {
  if (type.kind === 'enum') return { kind: 'enum', values: [...type.values] }
  const { alphabet, first, minLength, maxLength, prefix } = type
  return { kind: 'token', alphabet, first, minLength, maxLength, prefix }
}
