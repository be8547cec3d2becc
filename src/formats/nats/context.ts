import type { ErrorObject } from 'ajv'
import { patternEngine as decidePatternEngine, type PatternEngine } from '../../core/pattern-safety.js'
import { joinPointer } from '../../runtime/shared/json-pointer.js'
import type { TokenType } from '../../runtime/nats/tokens.js'
import type { TemplateToken } from '../../runtime/nats/subjects.js'
import { parseAddress, parseFilter, positions } from './address.js'
import type { Language } from './languages.js'
import { isObject } from './document.js'
import { profileOf, type LoadedFile, type NatsInput } from './load.js'
import { MessageSchemas } from './message-schemas.js'
import { readTokenType } from './token-type-form.js'
import { planValidators, type ValidatorPlan } from './validator-plan.js'

export interface ChannelInfo {
  id: string
  address?: string
  /** The parsed address, when it is a valid template. */
  tokens?: TemplateToken[]
  /** Placeholder -> token type name, from the profile. */
  parameters: Record<string, string>
  /** What parsing the address gave, problems included (parsed once per input). */
  parsed?: ReturnType<typeof parseAddress>
  /** `NatsContext.channelTypes` and `language`, once computed (null: none); on the channel, not in a Map keyed by it (bench/). */
  types?: Record<string, TokenType> | null
  language?: Language | null
}

interface DerivedFacts {
  types?: Record<string, TokenType>
  channels?: Map<string, ChannelInfo>
  channelList?: ChannelInfo[]
  filters?: Map<string, ReturnType<typeof parseFilter>>
  operations?: Array<[string, Record<string, unknown>]>
  messages?: MessageSchemas
  engines?: Map<string, PatternEngine>
  plan?: ValidatorPlan
}

/**
 * Facts one rule module derives and several rules read, which only that module knows how to make
 * (it sets its member on first use): kept here, so they live exactly as long as this document's check.
 */
export interface RuleFacts {
  /** rules/profile.ts: the profile's shape errors (NATS_PROFILE_UNSUPPORTED and NATS_PROFILE_SHAPE read them). */
  profileErrors?: readonly ErrorObject[]
  /** rules/each-message.ts: each message where it is written (NATS_HEADERS_NOT_OBJECT and NATS_SCHEMA_FORMAT walk them). */
  messagesWritten?: readonly WrittenMessage[]
  /** rules/standard-reads.ts: what a rule over the standard part reads (`Rule.reads`; the model's channels read it too). */
  standardParts?: readonly unknown[]
  /** rules/patterns.ts: every schema pattern where it is written (the three pattern rules read them). */
  patternSites?: readonly import('./rules/patterns.js').PatternSite[]
}

/** A message object as written: the file that holds it, and its pointer there. */
export interface WrittenMessage {
  readonly file: LoadedFile
  readonly message: Record<string, unknown>
  readonly at: string
}

/**
 * What every NATS rule reads: the input, and facts derived once (rules report through the runner,
 * core/rule-runner.ts). It is also what `check` hands to `model` (the format's `Checked` value):
 * every fact lives here, made on first use, and nowhere else (no module-level table keyed by a
 * document), so the model reads exactly what the rules read, and a fact's life is its compile's.
 */
export class NatsContext {
  readonly doc: Record<string, unknown>
  readonly profile: Record<string, unknown>

  constructor(readonly input: NatsInput) {
    this.doc = (isObject(input.main.source.value) ? input.main.source.value : {}) as Record<string, unknown>
    this.profile = profileOf(this.doc) ?? {}
  }

  get main(): LoadedFile {
    return this.input.main
  }

  section(name: string): Record<string, unknown> {
    const value = this.profile[name]
    return isObject(value) ? value : {}
  }

  standard(name: 'channels' | 'operations'): Record<string, unknown> {
    const value = this.doc[name]
    return isObject(value) ? value : {}
  }

  // Derived facts, made once: the context the rules used is the one the model is built from.
  private readonly facts: DerivedFacts = {}

  /** See `RuleFacts`: set by the rule module that derives each. */
  readonly ruleFacts: RuleFacts = {}

  /** The profile operations that are objects, listed once: six rules walk them. */
  get profileOperations(): ReadonlyArray<[string, Record<string, unknown>]> {
    const facts = this.facts
    return (facts.operations ??= Object.entries(this.section('operations')).filter((e): e is [string, Record<string, unknown>] => isObject(e[1])))
  }

  /**
   * The message payloads with their references into locked files made local, and the components
   * they need (message-schemas.ts): made once, read by the rules, the validator plan and the model.
   */
  get messages(): MessageSchemas {
    const facts = this.facts
    return (facts.messages ??= new MessageSchemas(this))
  }

  /**
   * The engine of a schema `pattern` (core/pattern-safety.ts), decided once per document and text:
   * the pattern rule's warning and the validator plan's runtime patterns read the same decision.
   */
  patternEngine(pattern: string): PatternEngine {
    const engines = (this.facts.engines ??= new Map())
    let engine = engines.get(pattern)
    if (!engine) engines.set(pattern, (engine = decidePatternEngine(pattern)))
    return engine
  }

  /**
   * How each payload the module validates is checked (validator-plan.ts), decided once, in check
   * (the payload rules read it there), and carried by the model to generation.
   */
  get validatorPlan(): ValidatorPlan {
    const facts = this.facts
    return (facts.plan ??= planValidators(this))
  }

  /** The token types that are well defined and non-empty. */
  get tokenTypes(): Record<string, TokenType> {
    const facts = this.facts
    if (!facts.types) {
      const types = Object.create(null) as Record<string, TokenType>
      for (const [name, def] of Object.entries(this.section('tokenTypes'))) {
        const type = readTokenType(def)
        if (type !== undefined) types[name] = type
      }
      facts.types = types
    }
    return facts.types
  }

  /** Standard channels, with their profile parameters. */
  get channels(): Map<string, ChannelInfo> {
    const facts = this.facts
    if (!facts.channels) {
      const channels = new Map<string, ChannelInfo>()
      const profiled = this.section('channels')
      const standard = this.standard('channels')
      for (const id of Object.keys(standard)) {
        const channel = standard[id]
        if (!isObject(channel)) continue
        const address = typeof channel.address === 'string' ? channel.address : undefined
        const parsed = address === undefined ? undefined : parseAddress(address)
        const profile = isObject(profiled[id]) ? (profiled[id] as Record<string, unknown>) : {}
        // Own data properties (a `__proto__` parameter stays a parameter), string-valued ones only.
        const parameters: Record<string, string> = {}
        if (isObject(profile.parameters)) {
          const given = profile.parameters
          for (const param of Object.keys(given)) {
            const type = given[param]
            if (typeof type !== 'string') continue
            if (param === '__proto__') Object.defineProperty(parameters, param, { value: type, enumerable: true, writable: true, configurable: true })
            else parameters[param] = type
          }
        }
        // One shape for every channel (members assigned, absent ones undefined): conditional spreads
        // gave objects of many shapes, slow to read in every rule on a large contract (bench/).
        channels.set(id, {
          id,
          address,
          tokens: parsed && 'tokens' in parsed ? parsed.tokens : undefined,
          parameters,
          parsed,
          types: undefined,
          language: undefined,
        })
      }
      facts.channels = channels
    }
    return facts.channels
  }

  /**
   * The channels in document order, as an array: rules walk them one after another, and an array
   * walk allocates nothing where a Map iterator may (bench/: allocation at 5,000 channels).
   */
  get channelList(): readonly ChannelInfo[] {
    const facts = this.facts
    return (facts.channelList ??= [...this.channels.values()])
  }

  /** A filter (or native subject pattern) parsed, once per input and text. */
  filter(text: string): ReturnType<typeof parseFilter> {
    const facts = this.facts
    const filters = (facts.filters ??= new Map())
    let parsed = filters.get(text)
    if (!parsed) filters.set(text, (parsed = parseFilter(text)))
    return parsed
  }

  /**
   * The token types of a channel's placeholders, when every placeholder of its address has a
   * defined, valid type (otherwise the rules that report why have their say, and the language
   * rules skip the channel).
   */
  channelTypes(channel: ChannelInfo): Record<string, TokenType> | undefined {
    if (channel.types !== undefined) return channel.types ?? undefined
    let out: Record<string, TokenType> | undefined = Object.create(null) as Record<string, TokenType>
    for (const param of Object.keys(channel.parameters)) {
      const type = this.tokenTypes[channel.parameters[param]!]
      if (!type) {
        out = undefined
        break
      }
      out[param] = type
    }
    const typed = out
    if (typed && (channel.tokens ?? []).some((token) => typeof token !== 'string' && !typed[token.param])) out = undefined
    channel.types = out ?? null
    return out
  }

  /** The subject language of a channel with a typed address (once per channel), else undefined. */
  language(channel: ChannelInfo): Language | undefined {
    if (channel.language !== undefined) return channel.language ?? undefined
    const types = channel.tokens && this.channelTypes(channel)
    const language = channel.tokens && types ? (positions(channel.tokens, types) as Language) : undefined
    channel.language = language ?? null
    return language
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
  const ref = decodedRef(isObject(value) && typeof value.$ref === 'string' ? value.$ref : undefined)
  if (!ref?.startsWith(prefix)) return undefined
  const id = ref.slice(prefix.length)
  if (id.includes('/')) return undefined
  return id.includes('~') ? id.replace(/~1/g, '/').replace(/~0/g, '~') : id
}

/**
 * A local `$ref` with its fragment percent-decoded, as RFC 6901 (section 6) reads a JSON Pointer in a
 * URI fragment before its `~1`/`~0` escapes: `#/channels/x%20y` names channel `x y`. Undefined for
 * a fragment that does not decode; any other reference as it is.
 */
export function decodedRef(ref: string | undefined): string | undefined {
  if (ref === undefined || !ref.startsWith('#') || !ref.includes('%')) return ref
  try {
    return `#${decodeURIComponent(ref.slice(1))}`
  } catch {
    return undefined
  }
}
