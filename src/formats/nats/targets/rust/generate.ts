/**
 * The Rust target: one module per application document, from the normalized model the TypeScript
 * generator reads. Token types become validators (enums become Rust enums with `as_str`,
 * `from_token` and `FromStr`), each addressed channel a module with its `Params`, `render`,
 * `parse`, `try_parse`, `matches` and filters (`render`, `matches`), and the descriptors `const`
 * data with source backlinks. Every name from the document is sanitized (keywords escaped) and
 * every string an escaped literal; the layout is rustfmt's (writer.ts).
 */
import { sortedCopy } from '../../../../core/emit.js'
import type { TemplateToken } from '../../../../runtime/nats/subjects.js'
import type { ChannelModel, NatsModel, SourceLink } from '../../model.js'
import { codeSpan, docLines } from './doc.js'
import { Names, PRELUDE_NAMES, rustString } from './names.js'
import { RustWriter, type RustValue } from './writer.js'
import { writePayloads } from './payloads.js'

const source = (s: SourceLink): RustValue => ({
  type: 'Source',
  fields: [
    ['file', rustString(s.file)],
    ['pointer', rustString(s.pointer)],
    ['line', String(s.line)],
    ['column', String(s.column)],
  ],
})
const option = (value: string | undefined) => (value === undefined ? 'None' : `Some(${rustString(value)})`)
const json = (value: unknown) => JSON.stringify(sortedCopy(value), (_k, v: unknown) => (typeof v === 'bigint' ? v.toString() : v))

type TypeInfo = { kind: 'enum'; type: string } | { kind: 'token'; rule: string }

interface Types {
  readonly info: Map<string, TypeInfo>
  /** Token type name -> `accepts_<name>` function. */
  readonly accepts: Map<string, string>
}

/** What `use crate::common::*` brings into a contract module and its channel modules (a document name must not shadow it). */
const COMMON_ITEMS = ['SubjectError', 'Source', 'Contract', 'Operation', 'Described', 'Alphabet', 'TokenRule', 'FilterToken', 'is_base_token', 'filter_matches']
/** The contract module's own fixed items: its constants, the `payloads` module, and `tests` (kept free for a harness). */
const MODULE_ITEMS = [
  'CONTRACT',
  'OPERATIONS',
  'STREAMS',
  'CONSUMERS',
  'ADAPTERS',
  'INTERACTIONS',
  'PIPELINES',
  'WORKFLOWS',
  'common',
  'payloads',
  'tests',
  'Params',
]

/** The Rust names of one application module, decided once: the generator and harnesses read the same map. */
export interface RustLayout {
  readonly types: Map<string, TypeInfo>
  /** Token type name -> `accepts_<name>` function. */
  readonly accepts: Map<string, string>
  /** Channel id -> its module and its filters' modules. */
  readonly modules: Map<string, { module: string; filters: Map<string, string> }>
}

/**
 * Every document name of a contract module in its namespace: the type namespace (token enums,
 * channel modules) and the value namespace (token rules, `accepts_` functions) each one injective
 * map that also keeps clear of the prelude, std and the module's own items.
 */
export function rustLayout(model: NatsModel): RustLayout {
  const typeSpace = new Names('camel', [...PRELUDE_NAMES, ...COMMON_ITEMS, ...MODULE_ITEMS])
  const valueSpace = new Names('screaming', [...PRELUDE_NAMES, ...COMMON_ITEMS, ...MODULE_ITEMS])
  const info = new Map<string, TypeInfo>()
  const accepts = new Map<string, string>()
  for (const [name, type] of Object.entries(model.tokenTypes).sort(([a], [b]) => (a < b ? -1 : 1))) {
    accepts.set(name, valueSpace.get(`accepts:${name}`, `accepts_${name}`, 'snake'))
    info.set(
      name,
      type.kind === 'enum' ? { kind: 'enum', type: typeSpace.get(`type:${name}`, name) } : { kind: 'token', rule: valueSpace.get(`rule:${name}`, name) },
    )
  }
  const modules = new Map<string, { module: string; filters: Map<string, string> }>()
  for (const c of model.channels) {
    // Inside `filters`: the filter modules and the glob import's names.
    const filters = new Names('snake', [...PRELUDE_NAMES, ...COMMON_ITEMS])
    modules.set(c.id, { module: typeSpace.get(`channel:${c.id}`, c.id, 'snake'), filters: new Map(c.filters.map((f) => [f.name, filters.get(f.name)])) })
  }
  return { types: info, accepts, modules }
}

function tokenTypes(model: NatsModel, w: RustWriter, layout: RustLayout): Types {
  const { types: info, accepts } = layout
  for (const [name, type] of Object.entries(model.tokenTypes).sort(([a], [b]) => (a < b ? -1 : 1))) {
    const fn = accepts.get(name)!
    const typeInfo = info.get(name)!
    if (type.kind === 'enum' && typeInfo.kind === 'enum') {
      const id = typeInfo.type
      const variants = new Names('camel', ['Self'])
      const list = type.values.map((v) => [variants.get(v), v] as const)
      w.line(`/// Token type ${codeSpan(rustString(name))}: one of ${list.map(([, v]) => codeSpan(rustString(v))).join(', ')}.`)
      w.line('#[derive(Debug, Clone, Copy, PartialEq, Eq, Hash, PartialOrd, Ord)]').open(`pub enum ${id}`)
      for (const [variant] of list) w.line(`${variant},`)
      w.close().line()
      w.open(`impl ${id}`).line('/// The token, as it appears in subjects.').open("pub fn as_str(&self) -> &'static str").open('match self')
      for (const [variant, value] of list) w.line(`${id}::${variant} => ${rustString(value)},`)
      w.close().close().line()
      w.line('/// The value of a token, if it is one.').open('pub fn from_token(token: &str) -> Option<Self>').open('match token')
      for (const [variant, value] of list) w.line(`${rustString(value)} => Some(${id}::${variant}),`)
      w.line('_ => None,').close().close().close().line()
      w.open(`impl ::core::str::FromStr for ${id}`).line('type Err = SubjectError;').line()
      // `SubjectError`, not `Self::Err`: a variant named `Err` would make `Self::Err` ambiguous.
      w.open('fn from_str(value: &str) -> Result<Self, SubjectError>').line(`Self::from_token(value).ok_or(SubjectError::InvalidValue(${rustString(name)}))`)
      w.close().close().line()
      w.line(`/// Whether a token is a ${codeSpan(rustString(name))}.`)
        .open(`pub fn ${fn}(value: &str) -> bool`)
        .line(`${id}::from_token(value).is_some()`)
        .close()
        .line()
    } else if (type.kind !== 'enum' && typeInfo.kind === 'token') {
      const rule = typeInfo.rule
      w.line(
        `/// Token type ${codeSpan(rustString(name))}: ${type.alphabet} characters, ${type.first === 'letter' ? 'a letter first' : 'any first character'}, prefix ${codeSpan(rustString(type.prefix))}, ${type.minLength}..=${type.maxLength} bytes.`,
      )
      w.value(
        `pub const ${rule}: TokenRule = `,
        {
          type: 'TokenRule',
          fields: [
            ['alphabet', `Alphabet::${type.alphabet === 'lower' ? 'Lower' : type.alphabet === 'ascii' ? 'Ascii' : 'Hex'}`],
            ['first_letter', String(type.first === 'letter')],
            ['prefix', rustString(type.prefix)],
            ['min_length', String(type.minLength)],
            ['max_length', String(type.maxLength)],
          ],
        },
        ';',
      )
      w.line()
        .line(`/// Whether a token is a ${codeSpan(rustString(name))}.`)
        .open(`pub fn ${fn}(value: &str) -> bool`)
        .line(`${rule}.accepts(value)`)
        .close()
        .line()
    }
  }
  return { info, accepts }
}

/** `/// ` lines of a description (plain text, escaped) after a blank `///`, if there is one. */
function writeDescription(w: RustWriter, prefix: '///' | '//!', description: string | undefined): void {
  const lines = description === undefined ? [] : docLines(description)
  if (lines.length === 0) return
  w.line(prefix)
  for (const l of lines) w.line(l === '' ? prefix : `${prefix} ${l}`)
}

/** The parameters of a channel: field name, Rust type and token type, in name order. */
function fieldsOf(channel: ChannelModel, types: Types, up: string): Array<{ param: string; field: string; type: string; info: TypeInfo }> {
  // The locals of `parse`, `render`, `get` and `from_pairs` (a field is also a local there): a
  // parameter named `t1` or `pairs` must not shadow them.
  const locals = ['tokens', 'out', 'subject', 'pairs', 'name', 'value', 'n', ...(channel.tokens ?? []).map((_, k) => `t${k}`)]
  const names = new Names('snake', [...PRELUDE_NAMES, ...locals])
  return Object.keys(channel.parameters)
    .sort()
    .map((param) => {
      const info = types.info.get(channel.parameters[param]!)!
      return { param, field: names.get(param), type: info.kind === 'enum' ? `${up}${info.type}` : 'String', info }
    })
}

/** The statements that push a template's tokens onto `out` (literal runs joined, values as they are). */
function pushTokens(w: RustWriter, tokens: readonly TemplateToken[], text: (param: string) => string): void {
  const push = (run: string) => w.line(run.length === 1 ? `out.push(${rustChar(run)});` : `out.push_str(${rustString(run)});`)
  let run = ''
  tokens.forEach((t, k) => {
    const sep = k === 0 ? '' : '.'
    if (typeof t === 'string') run += sep + t
    else {
      run += sep
      if (run) push(run)
      run = ''
      w.line(`out.push_str(${text(t.param)});`)
    }
  })
  if (run) push(run)
}

/** A one-character Rust char literal (the character is a subject's: ASCII). */
const rustChar = (c: string) => `'${c === "'" || c === '\\' ? `\\${c}` : c}'`

/** `get` (a parameter's value by its contract name) and `from_pairs` (parameters from name/value pairs, checked). */
function pairAccess(w: RustWriter, fields: ReturnType<typeof fieldsOf>, up: string, unit: boolean): void {
  w.line().line("/// A parameter's value by its name in the contract.").open('pub fn get(&self, name: &str) -> Option<&str>')
  if (fields.length === 0) w.line('let _ = name;').line('None')
  else {
    w.open('match name')
    for (const f of fields) w.line(`${rustString(f.param)} => Some(${f.info.kind === 'enum' ? `self.${f.field}.as_str()` : `&self.${f.field}`}),`)
    w.line('_ => None,').close()
  }
  w.close().line()
  w.line('/// Parameters from (name, value) pairs: every parameter once, each value in its domain.').open(
    'pub fn from_pairs(pairs: &[(&str, &str)]) -> Result<Self, SubjectError>',
  )
  if (fields.length === 0) {
    w.open('if !pairs.is_empty()')
      .line('return Err(SubjectError::NoMatch);')
      .close()
      .line(unit ? 'Ok(Self)' : 'Ok(Self {})')
  } else {
    w.open('if pairs.len() != ' + fields.length)
      .line('return Err(SubjectError::NoMatch);')
      .close()
    for (const f of fields) {
      w.open(`let ${f.field} = match pairs.iter().find(|(n, _)| *n == ${rustString(f.param)})`)
        .line('Some((_, value)) => *value,')
        .line('None => return Err(SubjectError::NoMatch),')
        .close(';')
      if (f.info.kind === 'enum')
        w.open(`let ${f.field} = match ${up}${f.info.type}::from_token(${f.field})`)
          .line('Some(value) => value,')
          .line(`None => return Err(SubjectError::InvalidValue(${rustString(f.param)})),`)
          .close(';')
      else
        w.open(`if !${up}${f.info.rule}.accepts(${f.field})`)
          .line(`return Err(SubjectError::InvalidValue(${rustString(f.param)}));`)
          .close()
          .line(`let ${f.field} = ${f.field}.to_string();`)
    }
    w.value('Ok(', { type: 'Self', fields: fields.map((f) => [f.field, f.field] as const) }, ')')
  }
  w.close()
}

/** `render(&self)`: every token value checked against its rule, then the template's tokens pushed onto one string. */
function writeRender(w: RustWriter, doc: string, fields: ReturnType<typeof fieldsOf>, tokens: readonly TemplateToken[], up: string): void {
  const byParam = new Map(fields.map((f) => [f.param, f]))
  w.line(doc).open('pub fn render(&self) -> Result<String, SubjectError>')
  for (const f of fields)
    if (f.info.kind === 'token')
      w.open(`if !${up}${f.info.rule}.accepts(&self.${f.field})`)
        .line(`return Err(SubjectError::InvalidValue(${rustString(f.param)}));`)
        .close()
  w.line('let mut out = String::new();')
  pushTokens(w, tokens, (p) => {
    const f = byParam.get(p)!
    return f.info.kind === 'enum' ? `self.${f.field}.as_str()` : `&self.${f.field}`
  })
  w.line('Ok(out)').close()
}

function channelModule(w: RustWriter, channel: ChannelModel, types: Types, moduleName: string, filterNames: Map<string, string>): void {
  const doc =
    channel.address === undefined
      ? `Channel ${codeSpan(rustString(channel.id))} (reply channel: no address, no subject builder).`
      : `Channel ${codeSpan(rustString(channel.id))}: ${codeSpan(channel.address)}.`
  w.line(`/// ${doc}`)
  writeDescription(w, '///', channel.description)
  w.open(`pub mod ${moduleName}`).line('#[allow(unused_imports)]').line('use crate::common::*;').line()
  w.line('/// The channel id.')
    .line(`pub const ID: &str = ${rustString(channel.id)};`)
    .line()
  w.line('/// Where the channel is declared.').value('pub const SOURCE: Source = ', source(channel.source), ';')
  if (channel.address === undefined || !channel.tokens) {
    w.close().line()
    return
  }
  w.line()
    .line('/// The address template.')
    .line(`pub const ADDRESS: &str = ${rustString(channel.address)};`)
    .line()
  const fields = fieldsOf(channel, types, 'super::')
  w.line('/// The parameters of one concrete subject.').line('#[derive(Debug, Clone, PartialEq, Eq, Hash)]')
  if (fields.length === 0) w.line('pub struct Params {}')
  else {
    w.open('pub struct Params')
    for (const f of fields) w.line(`/// ${codeSpan(`{${f.param}}`)}`).line(`pub ${f.field}: ${f.type},`)
    w.close()
  }
  w.line()
  w.open('impl Params')
  writeRender(w, '/// The subject of these parameters; an error for a value outside its token domain.', fields, channel.tokens, 'super::')
  pairAccess(w, fields, 'super::', false)
  w.close().line()
  // parse: exactly the template's tokens, each checked, nothing after them.
  w.line('/// The parameters of a subject of this channel; `NoMatch` for any other subject.').open(
    'pub fn parse(subject: &str) -> Result<Params, SubjectError>',
  )
  w.line("let mut tokens = subject.split('.');")
  const tokenOf = new Map<string, string>()
  channel.tokens.forEach((t, k) => {
    if (typeof t === 'string') {
      w.open(`if tokens.next() != Some(${rustString(t)})`)
        .line('return Err(SubjectError::NoMatch);')
        .close()
      return
    }
    tokenOf.set(t.param, `t${k}`)
    w.line(`let t${k} = tokens.next().ok_or(SubjectError::NoMatch)?;`)
  })
  w.open('if tokens.next().is_some()').line('return Err(SubjectError::NoMatch);').close()
  for (const f of fields) {
    const token = tokenOf.get(f.param)!
    if (f.info.kind === 'enum')
      w.open(`let ${f.field} = match super::${f.info.type}::from_token(${token})`)
        .line('Some(value) => value,')
        .line('None => return Err(SubjectError::NoMatch),')
        .close(';')
    else w.open(`if !super::${f.info.rule}.accepts(${token})`).line('return Err(SubjectError::NoMatch);').close().line(`let ${f.field} = ${token}.to_string();`)
  }
  w.value('Ok(', { type: 'Params', fields: fields.map((f) => [f.field, f.field] as const) }, ')')
  w.close().line()
  w.line('/// `parse`, without the reason.').open('pub fn try_parse(subject: &str) -> Option<Params>').line('parse(subject).ok()').close().line()
  w.line('/// Whether a subject belongs to this channel.').open('pub fn matches(subject: &str) -> bool').line('parse(subject).is_ok()').close()
  if (channel.filters.length > 0) {
    w.line().line("/// The channel's named filters.").open('pub mod filters').line('#[allow(unused_imports)]').line('use crate::common::*;').line()
    for (const f of channel.filters) filterModule(w, f, filterNames.get(f.name)!, channel, types)
    w.close()
  }
  w.close().line()
}

function filterModule(w: RustWriter, filter: ChannelModel['filters'][number], name: string, channel: ChannelModel, types: Types): void {
  const up = 'super::super::super::'
  const fields = fieldsOf(channel, types, up)
  const used = new Set(filter.tokens.filter((t): t is { param: string } => typeof t !== 'string').map((t) => t.param))
  const mine = fields.filter((f) => used.has(f.param))
  w.line(`/// Filter ${codeSpan(rustString(filter.name))}: ${codeSpan(filter.template)}.`)
    .open(`pub mod ${name}`)
    .line('#[allow(unused_imports)]')
    .line('use crate::common::*;')
    .line()
  w.line('/// The filter template.')
    .line(`pub const TEMPLATE: &str = ${rustString(filter.template)};`)
    .line()
  const tokens = filter.tokens.map((t: TemplateToken) =>
    t === '*'
      ? 'FilterToken::Star'
      : t === '>'
        ? 'FilterToken::Tail'
        : typeof t === 'string'
          ? `FilterToken::Literal(${rustString(t)})`
          : `FilterToken::Param(${up}${types.accepts.get(channel.parameters[t.param]!)!})`,
  )
  // rustfmt puts an array on one line when its items fit 60 characters, else one item per line.
  const items = tokens.join(', ')
  if (items.length <= 60 && w.fits(`const TOKENS: &[FilterToken] = &[${items}];`)) w.line(`const TOKENS: &[FilterToken] = &[${items}];`)
  else {
    w.line('const TOKENS: &[FilterToken] = &[')
    w.indented(() => tokens.forEach((t) => w.line(`${t},`)))
    w.line('];')
  }
  const positions = new Map<string, number[]>()
  filter.tokens.forEach((t, k) => {
    if (typeof t !== 'string') positions.set(t.param, [...(positions.get(t.param) ?? []), k])
  })
  const same = [...positions.values()].flatMap((ks) => ks.slice(1).map((k) => `(${ks[0]}, ${k})`))
  w.line(`const SAME: &[(usize, usize)] = &[${same.join(', ')}];`).line()
  w.line("/// The values of the filter's placeholders.").line('#[derive(Debug, Clone, PartialEq, Eq, Hash)]')
  if (mine.length === 0) w.line('pub struct Params;')
  else {
    w.open('pub struct Params')
    for (const f of mine) w.line(`pub ${f.field}: ${f.type},`)
    w.close()
  }
  w.line()
  w.open('impl Params')
  writeRender(w, '/// The subscription subject (`*` and `>` stay wildcards).', mine, filter.tokens, up)
  pairAccess(w, mine, up, true)
  w.close().line()
  w.line('/// Whether a concrete subject is delivered by this filter.')
    .open('pub fn matches(subject: &str) -> bool')
    .line('filter_matches(TOKENS, SAME, subject)')
    .close()
  w.close().line()
}

export interface RustOptions {
  /** Also a `payloads` module with `serde` derives, behind the crate's `serde` feature. */
  readonly serde?: boolean
}

/** One application document as a Rust module (`<contract>.rs`), deterministic bytes. */
export function generateRust(model: NatsModel, options: RustOptions = {}): string {
  const w = new RustWriter()
  w.line(
    `//! NATS contract ${codeSpan(rustString(model.contract.id))} ${codeSpan(rustString(model.contract.version))} (profile 0.2.0-draft), generated by unplugin-contracts. Do not edit.`,
  )
  writeDescription(w, '//!', model.description)
  w.line().line('#[allow(unused_imports)]').line('use crate::common::*;').line()
  w.line("/// The contract's identity and deployment binding.")
  w.value(
    'pub const CONTRACT: Contract = ',
    {
      type: 'Contract',
      fields: [
        ['id', rustString(model.contract.id)],
        ['version', rustString(model.contract.version)],
        ['profile', '"0.2.0-draft"'],
        ['digest', rustString(model.contract.digest)],
        ['binding', rustString(model.deployment.binding)],
        ['minimum_server_version', rustString(model.deployment.minimumServerVersion)],
      ],
    },
    ';',
  )
  w.line()
  const layout = rustLayout(model)
  const types = tokenTypes(model, w, layout)
  for (const c of model.channels) {
    const names = layout.modules.get(c.id)!
    channelModule(w, c, types, names.module, names.filters)
  }
  const array = (name: string, type: string, doc: string, values: RustValue[]) => {
    w.line(`/// ${doc}`)
    if (values.length === 0) w.line(`pub const ${name}: &[${type}] = &[];`)
    // rustfmt lets a lone struct literal overflow the brackets: `&[T {` ... `}];`.
    else if (values.length === 1) w.value(`pub const ${name}: &[${type}] = &[`, values[0]!, '];')
    else {
      w.line(`pub const ${name}: &[${type}] = &[`)
      w.indented(() => values.forEach((v) => w.value('', v, ',')))
      w.line('];')
    }
    w.line()
  }
  array(
    'OPERATIONS',
    'Operation',
    'The operations, as their profile entries describe them.',
    model.operations.map((o) => ({
      type: 'Operation',
      fields: [
        ['id', rustString(o.id)],
        ['action', rustString(o.action)],
        ['channel', rustString(o.channel)],
        ['kind', rustString(o.kind)],
        ['api', rustString(o.api)],
        ['confirmation', option(o.confirmation)],
        ['stream', option(o.stream)],
        ['consumer', option(o.consumer)],
        ['queue', option(o.queue)],
        ['request_timeout_ms', o.requestReply ? `Some(${o.requestReply.timeoutMs})` : 'None'],
        ['reply_channel', option(o.requestReply?.replyChannel)],
        ['source', source(o.source)],
      ],
    })),
  )
  const described = (name: string, doc: string, items: Array<{ key: string; data: unknown; source: SourceLink }>) =>
    array(
      name,
      'Described',
      doc,
      items.map((i) => ({
        type: 'Described',
        fields: [
          ['key', rustString(i.key)],
          ['json', rustString(json(i.data))],
          ['source', source(i.source)],
        ],
      })),
    )
  const data = <T extends { source: SourceLink }>(x: T) => ({ ...x, source: undefined })
  described(
    'STREAMS',
    'The streams, with their configurations (JSON).',
    model.streams.map((s) => ({ key: s.key, data: data(s), source: s.source })),
  )
  described(
    'CONSUMERS',
    'The consumers, with their configurations (JSON).',
    model.consumers.map((c) => ({ key: c.key, data: data(c), source: c.source })),
  )
  described(
    'ADAPTERS',
    'The adapters (JSON).',
    model.adapters.map((a) => ({ key: a.key, data: data(a), source: a.source })),
  )
  described(
    'INTERACTIONS',
    'The interactions (JSON).',
    model.interactions.map((i) => ({ key: i.id, data: i.data, source: i.source })),
  )
  described(
    'PIPELINES',
    'The pipelines (JSON).',
    model.pipelines.map((p) => ({ key: p.key, data: p.data, source: p.source })),
  )
  described(
    'WORKFLOWS',
    'The workflows (JSON).',
    model.workflows.map((x) => ({ key: x.key, data: x.data, source: x.source })),
  )
  if (options.serde) writePayloads(w, model, new Map([...layout.modules].map(([id, m]) => [id, m.module])))
  return w.text()
}

/** The module names the generator gives a model's channels and their filters (for harnesses). */
export function rustModuleNames(model: NatsModel): Map<string, { module: string; filters: Map<string, string> }> {
  return rustLayout(model).modules
}
