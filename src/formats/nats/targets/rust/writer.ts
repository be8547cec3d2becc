/**
 * Lines of Rust in the layout `rustfmt` gives them with its default options, for the constructs
 * the generator writes: four-space blocks, struct literals on one line only when their body is at
 * most 18 characters (rustfmt's `struct_lit_width`) and the line fits 100, else one field per line,
 * no blank line just inside a brace. Generated code is then `rustfmt --check` clean as written,
 * with no formatter needed where it is generated.
 */
export type RustValue = string | { readonly type: string; readonly fields: ReadonlyArray<readonly [string, RustValue]> }

export class RustWriter {
  private readonly lines: string[] = []
  private depth = 0

  private get pad(): string {
    return '    '.repeat(this.depth)
  }

  line(text = ''): this {
    if (text === '') {
      // No blank line after an opening brace, nor two in a row.
      const last = this.lines.at(-1)
      if (last === undefined || last === '' || last.endsWith('{')) return this
      this.lines.push('')
    } else this.lines.push(this.pad + text)
    return this
  }

  open(text: string): this {
    this.line(`${text} {`)
    this.depth++
    return this
  }

  close(suffix = ''): this {
    while (this.lines.at(-1) === '') this.lines.pop()
    this.depth--
    this.lines.push(`${this.pad}}${suffix}`)
    return this
  }

  /** Whether `text` fits on one line here (rustfmt's 100 columns). */
  fits(text: string): boolean {
    return this.pad.length + text.length <= 100
  }

  /**
   * `#[serde(rename = "...")]`, or, past 100 columns, its argument on a line of its own as rustfmt
   * wraps an attribute (`#[serde(` / `rename = "..."` / `)]`).
   */
  rename(name: string): this {
    const one = `#[serde(rename = ${name})]`
    return this.fits(one)
      ? this.line(one)
      : this.line('#[serde(')
          .indented(() => this.line(`rename = ${name}`))
          .line(')]')
  }

  /** A struct member `pub name: Type,`, or, past 100 columns, its type on the next line, as rustfmt breaks it. */
  member(name: string, type: string): this {
    const one = `pub ${name}: ${type},`
    return this.fits(one) ? this.line(one) : this.line(`pub ${name}:`).indented(() => this.line(`${type},`))
  }

  /** `pub type Name = Type;`, or, past 100 columns, its type on the next line, as rustfmt breaks it. */
  alias(name: string, type: string): this {
    const one = `pub type ${name} = ${type};`
    return this.fits(one) ? this.line(one) : this.line(`pub type ${name} =`).indented(() => this.line(`${type};`))
  }

  /** Lines one level deeper (array items). */
  indented(write: () => void): this {
    this.depth++
    write()
    this.depth--
    return this
  }

  /** `prefix` followed by a value (a struct literal laid out as rustfmt would) and `suffix`. */
  value(prefix: string, value: RustValue, suffix: string): this {
    for (const l of layout(value, this.depth, prefix, suffix)) this.lines.push(l)
    return this
  }

  text(): string {
    while (this.lines.at(-1) === '') this.lines.pop()
    return this.lines.join('\n') + '\n'
  }
}

function inline(value: RustValue): string {
  if (typeof value === 'string') return value
  if (value.fields.length === 0) return `${value.type} {}`
  return `${value.type} { ${value.fields.map(field).join(', ')} }`
}

/** `key: value`, or the shorthand `key` when the value is the variable of that name. */
const field = ([k, v]: readonly [string, RustValue]) => (v === k ? k : `${k}: ${inline(v)}`)

function layout(value: RustValue, depth: number, prefix: string, suffix: string): string[] {
  const pad = '    '.repeat(depth)
  if (typeof value === 'string') return [`${pad}${prefix}${value}${suffix}`]
  const body = value.fields.map(field).join(', ')
  const one = `${pad}${prefix}${inline(value)}${suffix}`
  if (body.length <= 18 && one.length <= 100 && value.fields.every(([, v]) => typeof v === 'string')) return [one]
  const out = [`${pad}${prefix}${value.type} {`]
  for (const [k, v] of value.fields) out.push(...(v === k ? [`${pad}    ${k},`] : layout(v, depth + 1, `${k}: `, ',')))
  out.push(`${pad}}${suffix}`)
  return out
}
