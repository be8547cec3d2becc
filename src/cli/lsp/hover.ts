/**
 * Hover in a contract: on a `$ref`, where it leads (the target's file, line and pointer, a one-line
 * summary and the first lines of the value); on a `{placeholder}` of a NATS channel address or
 * filter, the token type the profile gives that parameter. Read from the editor's text as it is
 * now, never from a compile: hover answers while a document is broken elsewhere. Whatever comes
 * from a document is written as Markdown text or code (markdown.ts), never as Markdown or HTML.
 */
import { dirname, relative, resolve, sep } from 'node:path'
import { parseJsonSource } from '../../core/json-source.js'
import { parseYamlSource } from '../../core/yaml-source.js'
import { splitPointer } from '../../runtime/shared/json-pointer.js'
import { nodeAt } from './document-tree.js'
import { markdownCode, markdownFence, markdownText } from './markdown.js'

export interface HoverRequest {
  /** Absolute path of the document hovered. */
  file: string
  /** The format that claims it (`nats` gets placeholder hovers), if any. */
  format?: string
  text: string
  /** UTF-16 offset of the cursor. */
  offset: number
  /** Another file's text (an open document's, or the file's), confined as the compile's reads are; undefined when it cannot be read. */
  read(file: string): Promise<string | undefined>
}

export interface HoverAnswer {
  markdown: string
  /** The offsets the answer is about (the `$ref` value, the placeholder). */
  start: number
  end: number
}

const isYaml = (file: string) => /\.ya?ml$/i.test(file)
/** Lines of a value shown under a hover: enough to recognise it, never a whole schema. */
const PREVIEW_LINES = 14

export async function hoverAt(request: HoverRequest): Promise<HoverAnswer | undefined> {
  const node = nodeAt(request.text, isYaml(request.file), request.offset)
  if (!node) return undefined
  if (node.key && node.text === '$ref' && node.valueText !== undefined)
    return { markdown: await refHover(request, node.valueText), start: node.valueStart!, end: node.valueEnd! }
  if (!node.key && node.path.at(-1) === '$ref' && node.text !== undefined)
    return { markdown: await refHover(request, node.text), start: node.start, end: node.end }
  if (request.format === 'nats' && !node.key && node.text !== undefined) return placeholderHover(request, node.path, node.start, node.end)
  return undefined
}

/** Where a `$ref` leads: relative to the declaring file, a JSON Pointer fragment into the target. */
async function refHover(request: HoverRequest, ref: string): Promise<string> {
  const head = `**$ref** ${markdownCode(ref)}`
  const hash = ref.indexOf('#')
  const filePart = hash === -1 ? ref : ref.slice(0, hash)
  if (/^[a-z][a-z0-9+.-]*:/i.test(filePart)) return `${head}\n\nnames a URL: contracts are checked from local files, and nothing is fetched.`
  let pointer: string
  try {
    pointer = decodeURIComponent(hash === -1 ? '' : ref.slice(hash + 1))
  } catch {
    return `${head}\n\nThe fragment is not valid percent-encoding.`
  }
  if (pointer !== '' && !pointer.startsWith('/')) return `${head}\n\nThe fragment is not a JSON Pointer (one starts with \`/\`).`
  const target = filePart === '' ? request.file : resolve(dirname(request.file), filePart)
  const shown = target === request.file ? 'this document' : markdownCode(relative(dirname(request.file), target).split(sep).join('/'))
  const text = target === request.file ? request.text : await request.read(target)
  if (text === undefined) return `${head}\n\n${shown} cannot be read here (missing, a link, or outside the contract's tree).`
  const { source, diagnostics } = isYaml(target) ? parseYamlSource(target, text) : parseJsonSource(target, text)
  if (source.value === undefined || diagnostics.some((d) => d.severity === 'error'))
    return `${head}\n\n${shown} does not parse, so the reference cannot be followed.`
  const found = follow(source.value, pointer)
  if ('missing' in found) return `${head}\n\nresolves to nothing: ${shown} has no ${markdownCode(found.missing)} at ${markdownCode(found.at || '/')}.`
  const { line } = source.locate(pointer)
  const summary = summarize(found.value)
  return [
    `${head} → ${shown}, line ${line}, ${markdownCode(pointer || '/')}`,
    ...(summary ? [summary] : []),
    markdownFence('json', preview(found.value, PREVIEW_LINES)),
  ].join('\n\n')
}

/** The value at a pointer, or the first token that names nothing and where. */
function follow(root: unknown, pointer: string): { value: unknown } | { missing: string; at: string } {
  let value = root
  let at = ''
  for (const token of splitPointer(pointer)) {
    const next = Array.isArray(value)
      ? /^(?:0|[1-9]\d*)$/.test(token) && Number(token) < value.length
        ? { v: value[Number(token)] }
        : undefined
      : typeof value === 'object' && value !== null && Object.hasOwn(value, token)
        ? { v: (value as Record<string, unknown>)[token] }
        : undefined
    if (!next) return { missing: token, at }
    value = next.v
    at += '/' + token.replace(/~/g, '~0').replace(/\//g, '~1')
  }
  return { value }
}

/** One line about a schema-like value: its type, title, properties, required members, enum. */
function summarize(value: unknown): string | undefined {
  if (typeof value !== 'object' || value === null || Array.isArray(value)) return undefined
  const v = value as Record<string, unknown>
  const list = (xs: unknown[], max = 8) =>
    xs
      .slice(0, max)
      .map((x) => markdownCode(String(x)))
      .join(', ') + (xs.length > max ? `, … (${xs.length})` : '')
  const parts: string[] = []
  if (typeof v.type === 'string' || Array.isArray(v.type)) parts.push(`type ${list([v.type].flat())}`)
  if (typeof v.title === 'string') parts.push(`“${markdownText(clip(v.title))}”`)
  if (typeof v.properties === 'object' && v.properties !== null) parts.push(`properties ${list(Object.keys(v.properties))}`)
  if (Array.isArray(v.required) && v.required.length) parts.push(`required ${list(v.required)}`)
  if (Array.isArray(v.enum)) parts.push(`one of ${list(v.enum.map((e) => JSON.stringify(e)))}`)
  if (typeof v.description === 'string') parts.push(markdownText(clip(v.description)))
  return parts.length ? parts.join('; ') : undefined
}

const clip = (s: string, max = 120) => (s.length > max ? s.slice(0, max - 1) + '…' : s).replace(/\s+/g, ' ')

/** The first `max` lines of a value as indented JSON, written only as far as shown (a large schema is never stringified whole). */
function preview(value: unknown, max: number): string[] {
  const lines: string[] = []
  let more = false
  const emit = (line: string) => {
    if (lines.length < max) lines.push(line)
    else more = true
  }
  const write = (v: unknown, indent: string, prefix: string, comma: string) => {
    if (more) return
    if (typeof v !== 'object' || v === null) return emit(`${indent}${prefix}${JSON.stringify(v) ?? 'null'}${comma}`)
    const entries: Array<[string, unknown]> = Array.isArray(v) ? v.map((x) => ['', x]) : Object.entries(v)
    const [open, close] = Array.isArray(v) ? ['[', ']'] : ['{', '}']
    if (entries.length === 0) return emit(`${indent}${prefix}${open}${close}${comma}`)
    emit(`${indent}${prefix}${open}`)
    entries.forEach(([k, x], i) => write(x, indent + '  ', Array.isArray(v) ? '' : `${JSON.stringify(k)}: `, i < entries.length - 1 ? ',' : ''))
    emit(`${indent}${close}${comma}`)
  }
  write(value, '', '', '')
  if (more) lines.push('…')
  return lines
}

/**
 * A `{placeholder}` under the cursor in a channel's `address` (`/channels/<id>/address`) or one of
 * its profile filters (`/x-nats-contract/channels/<id>/filters/<name>`): the token type the profile
 * maps the parameter to (`x-nats-contract.channels.<id>.parameters`), and its definition.
 */
function placeholderHover(request: HoverRequest, path: Array<string | number>, start: number, end: number): HoverAnswer | undefined {
  const channel =
    path.length === 3 && path[0] === 'channels' && path[2] === 'address'
      ? path[1]
      : path.length === 5 && path[0] === 'x-nats-contract' && path[1] === 'channels' && path[3] === 'filters'
        ? path[2]
        : undefined
  if (typeof channel !== 'string') return undefined
  // The scalar's own source text: the placeholder's offsets are the cursor's (quotes or not).
  const raw = request.text.slice(start, end)
  for (const match of raw.matchAll(/\{([^{}.\s]*)\}/g)) {
    const from = start + match.index
    const to = from + match[0].length
    if (request.offset < from || request.offset > to) continue
    return { markdown: tokenTypeText(request, channel, match[1]!), start: from, end: to }
  }
  return undefined
}

function tokenTypeText(request: HoverRequest, channel: string, param: string): string {
  const head = `**{${markdownText(param)}}**, a parameter of channel ${markdownCode(channel)}`
  const { source } = isYaml(request.file) ? parseYamlSource(request.file, request.text) : parseJsonSource(request.file, request.text)
  const object = (v: unknown) => (typeof v === 'object' && v !== null && !Array.isArray(v) ? (v as Record<string, unknown>) : undefined)
  const profile = object(object(source.value)?.['x-nats-contract'])
  const parameters = object(object(object(profile?.channels)?.[channel])?.parameters)
  const typeName = parameters && Object.hasOwn(parameters, param) ? parameters[param] : undefined
  if (typeof typeName !== 'string')
    return `${head}\n\nhas no token type: ${markdownCode(`x-nats-contract.channels.${channel}.parameters`)} does not map ${markdownCode(param)} to one.`
  const types = object(profile?.tokenTypes)
  const definition = types && Object.hasOwn(types, typeName) ? types[typeName] : undefined
  if (definition === undefined)
    return `${head}: token type ${markdownCode(typeName)}\n\n\`x-nats-contract.tokenTypes\` does not define ${markdownCode(typeName)}.`
  return [`${head}: token type ${markdownCode(typeName)}`, tokenSummary(definition), markdownFence('json', preview(definition, PREVIEW_LINES))]
    .filter(Boolean)
    .join('\n\n')
}

/** A token type in words: `one of eu, us`; `hex, 12 characters, prefix "op"`. */
function tokenSummary(definition: unknown): string {
  const d = (typeof definition === 'object' && definition !== null ? definition : {}) as Record<string, unknown>
  if (d.kind === 'enum' && Array.isArray(d.values)) return `one of ${d.values.map((v) => markdownCode(String(v))).join(', ')}`
  if (d.kind !== 'token') return ''
  const length = markdownText(d.minLength === d.maxLength ? `${String(d.minLength)} characters` : `${String(d.minLength)} to ${String(d.maxLength)} characters`)
  const first = d.first === 'letter' ? ', starting with a letter' : ''
  const prefix = typeof d.prefix === 'string' && d.prefix !== '' ? `, prefix ${markdownCode(d.prefix)}` : ''
  return `a token of the ${markdownText(String(d.alphabet))} alphabet, ${length}${first}${prefix}`
}
