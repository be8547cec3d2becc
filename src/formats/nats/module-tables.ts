import { jsLiteral, jsString } from '../../core/emit.js'
import { escapeToken } from '../../runtime/shared/json-pointer.js'
import type { ChannelModel, NativeModel, OperationModel } from './model.js'

/**
 * The compact forms of a NATS module's channels, operations and native resources, as
 * `src/runtime/nats/module-data.ts` reads them (issue 33: a module no larger than its document).
 * A descriptor is written as the values its document gives, without the member names, the
 * constant members and the backlink pointers every descriptor repeats; the runtime puts those back.
 * Each writer checks that what it leaves out is what the runtime derives, and refuses (an internal
 * error, never a different module) a model it cannot write that way.
 */

function internal(what: string): never {
  throw new Error(`unplugin-contracts: the NATS module cannot write ${what} in its compact form`)
}

/**
 * A filter template for `filterTemplate`: each token equal to the address's token at its place left
 * empty, or the template in full (in an array) when that would not read back as the template.
 */
export function filterLiteral(template: string, address: string | undefined, addressTokens = address?.split('.')): string {
  if (address === undefined || addressTokens === undefined) return jsString(template)
  // Token by token: a token equal to the address's is left empty. Without an empty token of its
  // own, the template reads back exactly (`filterTemplate` fills exactly the empty ones).
  let short = ''
  for (let at = 0, i = 0; ; i++) {
    const end = template.indexOf('.', at)
    const token = end === -1 ? template.slice(at) : template.slice(at, end)
    if (token === '') return `[${jsString(template)}]`
    short += (i === 0 ? '' : '.') + (token === addressTokens[i] ? '' : token)
    if (end === -1) break
    at = end + 1
  }
  return jsString(short)
}

/**
 * Whether the runtime reads these parameters off the address: the names are its distinct
 * placeholders (none for a reply channel without one), each of the token type of its own name.
 */
function derivedParameters(channel: ChannelModel, parameterNames: readonly string[]): boolean {
  for (const name of parameterNames) if (channel.parameters[name] !== name) return false
  if (channel.address === undefined) return parameterNames.length === 0
  if (channel.tokens === undefined) return false
  // (A few names each: lists, not sets.) Every placeholder is a parameter and every parameter a placeholder.
  const seen: string[] = []
  for (const token of channel.tokens) {
    if (typeof token === 'string' || seen.includes(token.param)) continue
    if (!parameterNames.includes(token.param)) return false
    seen.push(token.param)
  }
  return seen.length === parameterNames.length
}

/**
 * The arguments of a channel's `channel(...)` call after `tokenTypes` and `$file`, as one text: id,
 * address, line, column, filters, parameters, validator, headers validator (trailing absent ones left out).
 * `parameterNames` is the order the descriptor lists them (code unit order of the names);
 * `validate` the expression of its payload validator, if it has one, `validateHeaders` its headers'.
 */
export function channelArguments(
  channel: ChannelModel,
  file: string,
  parameterNames: readonly string[],
  validate?: string,
  validateHeaders?: string,
  validateByMessage?: string,
): string {
  const { source, address } = channel
  if (source.file !== file || source.pointer !== `/channels/${escapeToken(channel.id)}`) internal(`the backlink of channel ${channel.id}`)
  const head = `${jsString(channel.id)}, ${address === undefined ? '0' : jsString(address)}, ${source.line}, ${source.column}`
  let filters = '0'
  if (channel.filters.length > 0) {
    const addressTokens = address?.split('.')
    filters = ''
    for (const f of channel.filters) filters += `${filters === '' ? '[' : ', '}${jsString(f.name)}, ${filterLiteral(f.template, address, addressTokens)}`
    filters += ']'
  }
  let parameters = '0'
  if (!derivedParameters(channel, parameterNames)) {
    parameters = ''
    for (const name of parameterNames) parameters += `${parameters === '' ? '' : ', '}${jsString(name)}, ${jsString(channel.parameters[name]!)}`
    parameters = `[${parameters}]`
  }
  // Trailing absent arguments left out.
  const tail = [filters, parameters, validate ?? '0', validateHeaders ?? '0', validateByMessage ?? '0']
  while (tail.at(-1) === '0') tail.pop()
  return tail.length === 0 ? head : `${head}, ${tail.join(', ')}`
}

const LETTERS = {
  action: { send: 's', receive: 'r' },
  kind: { publish: 'p', subscribe: 's' },
  api: { core: 'c', jetstream: 'j' },
  confirmation: { none: 'n', 'stream-ack': 's' },
} as const

function letter<K extends keyof typeof LETTERS>(member: K, value: unknown, id: string): string {
  const letters = LETTERS[member] as Record<string, string>
  if (typeof value !== 'string' || !Object.hasOwn(letters, value)) internal(`the ${member} of operation ${id}`)
  return letters[value]!
}

/** The keys an operation descriptor may have, in the order the model builds it. */
const OPERATION_KEYS = new Set(['id', 'action', 'channel', 'kind', 'api', 'confirmation', 'stream', 'consumer', 'queue', 'requestReply', 'messages', 'source'])

/**
 * The arguments of `operationTable`: `$file`, the table (columns, one entry per operation in the
 * model's order) and the validators by index (`validatorOf`: an operation's validator expression,
 * if it has one).
 */
export function operationTableLiteral(
  operations: readonly OperationModel[],
  file: string,
  validatorOf: (o: OperationModel, index: number) => string | undefined,
  headersValidatorOf: (o: OperationModel, index: number) => string | undefined = () => undefined,
  byMessageOf: (o: OperationModel, index: number) => string | undefined = () => undefined,
): string {
  const ids: string[] = []
  const channels: string[] = []
  const targets: string[] = []
  const lines: number[] = []
  const columns: number[] = []
  const more: string[] = []
  const checks: string[] = []
  const headerChecks: string[] = []
  const byMessageChecks: string[] = []
  let codes = ''
  let line = 0
  operations.forEach((o, i) => {
    for (const key of Object.keys(o)) if (!OPERATION_KEYS.has(key)) internal(`the member ${key} of operation ${o.id}`)
    if (o.source.file !== file || o.source.pointer !== `/operations/${escapeToken(o.id)}`) internal(`the backlink of operation ${o.id}`)
    // The runtime puts a publish's target back as `stream`, a subscribe's as `consumer`.
    if ((o.kind === 'publish' && o.consumer !== undefined) || (o.kind === 'subscribe' && o.stream !== undefined)) internal(`the target of operation ${o.id}`)
    ids.push(jsString(o.id))
    channels.push(jsString(o.channel))
    codes +=
      letter('action', o.action, o.id) +
      letter('kind', o.kind, o.id) +
      letter('api', o.api, o.id) +
      (o.confirmation === undefined ? '-' : letter('confirmation', o.confirmation, o.id))
    const target = o.stream ?? o.consumer
    targets.push(target === undefined ? '0' : jsString(target))
    lines.push(o.source.line - line)
    line = o.source.line
    columns.push(o.source.column)
    const extra: string[] = []
    if (o.queue !== undefined) extra.push(`q: ${jsString(o.queue)}`)
    if (o.requestReply !== undefined) {
      const { routing, completion, timeoutMs, replyChannel, ...rest } = o.requestReply
      if (routing !== 'native-inbox' || completion !== 'first-response' || Object.keys(rest).length > 0) internal(`the request-reply of operation ${o.id}`)
      extra.push(`r: [${jsLiteral(timeoutMs)}${replyChannel === undefined ? '' : `, ${jsString(replyChannel)}`}]`)
    }
    if (o.messages !== undefined) extra.push(`m: ${jsLiteral(o.messages)}`)
    if (extra.length > 0) more.push(`${i}: { ${extra.join(', ')} }`)
    const validate = validatorOf(o, i)
    if (validate !== undefined) checks.push(`${i}: ${validate}`)
    const validateHeaders = headersValidatorOf(o, i)
    if (validateHeaders !== undefined) headerChecks.push(`${i}: ${validateHeaders}`)
    const byMessage = byMessageOf(o, i)
    if (byMessage !== undefined) byMessageChecks.push(`${i}: ${byMessage}`)
  })
  const table = [
    `ids: [${ids.join(', ')}]`,
    `codes: ${jsString(codes)}`,
    `channels: [${channels.join(', ')}]`,
    `targets: [${targets.join(', ')}]`,
    `lines: [${lines.join(', ')}]`,
    `columns: [${columns.join(', ')}]`,
    ...(more.length > 0 ? [`more: { ${more.join(', ')} }`] : []),
  ]
  // The validators by index (payload, headers, each message's pairs), trailing absent ones left out.
  const tail = [checks, headerChecks, byMessageChecks].map((list) => (list.length > 0 ? `{ ${list.join(', ')} }` : '0'))
  while (tail.at(-1) === '0') tail.pop()
  return `$file, { ${table.join(', ')} }${tail.map((t) => `, ${t}`).join('')}`
}

/** The rows `nativeTable` reads for `streams` or `consumers` (the model's order, its key-sorted members). */
export function nativeRows(resources: readonly NativeModel[], section: 'streams' | 'consumers', file: string): string {
  const rows = resources.map((r) => {
    for (const key of Object.keys(r))
      if (!['artifact', 'authority', 'config', 'key', 'source', 'stream'].includes(key)) internal(`the member ${key} of ${section} ${r.key}`)
    const defaultPointer = `/x-nats-contract/${section}/${escapeToken(r.key)}/config`
    const row = [
      jsString(r.key),
      jsLiteral(r.authority),
      jsLiteral(r.config),
      String(r.source.line),
      String(r.source.column),
      r.stream === undefined ? '0' : jsString(r.stream),
      r.source.pointer === defaultPointer ? '0' : jsString(r.source.pointer),
      r.source.file === file ? '0' : jsString(r.source.file),
      r.artifact === undefined ? '0' : `[${jsString(r.artifact.path)}, ${jsString(r.artifact.sha256)}, ${jsString(r.artifact.pointer)}]`,
    ]
    while (row.at(-1) === '0') row.pop()
    return `[${row.join(', ')}]`
  })
  return `$file, ${jsString(section)}, [${rows.join(', ')}]`
}
