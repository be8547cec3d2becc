/**
 * A topology as Mermaid flowchart text that GitHub renders as it is: applications and JetStream
 * bindings as subgraphs, channels inside their application, links as dotted arrows, captures and
 * consumers as arrows, imports as thick arrows between applications, one colour per binding.
 * Every label is quoted, and every character of it outside a small safe set (letters, digits, space
 * and `.,_/()+*=-`) is written as Mermaid's entity code (`#123;` for `{`): mermaid 11 applies a
 * `%%{init: ...}%%` directive wherever it appears in the text, inside a quoted label too, and its
 * entity pre-pass rewrites lines holding `style` or `classDef` with `:` ... `;`; with `%`, `{`, `}`,
 * `'`, `:`, `;`, `#`, quotes, brackets and every non-ASCII character encoded, no document text can
 * form a directive, a comment, a style, markup or the end of its label. Node, subgraph and class
 * names are the view's generated keys (`n0`, `binding0`), never document text.
 */
import type { Topology } from './projection.js'
import { bindingColour, topologyView, type ViewOptions } from './view.js'

/** Display text inside a quoted Mermaid label: one pass, every code point outside the safe set as `#<decimal>;`. */
export function mermaidText(text: string): string {
  return text.replace(/[^A-Za-z0-9 .,_/()+*=-]/gu, (c) => `#${c.codePointAt(0)};`)
}

export function toMermaid(topology: Topology, options: ViewOptions = {}): string {
  const view = topologyView(topology, options)
  const out = ['flowchart LR']
  for (const group of view.groups) {
    out.push(`  subgraph ${group.key}["${mermaidText(group.label)}"]`)
    for (const n of group.nodes) {
      const label = `"${mermaidText(n.label)}"`
      out.push(
        `    ${n.key}${n.shape === 'stream' ? `[(${label})]` : n.shape === 'consumer' ? `([${label}])` : n.shape === 'more' ? `{{${label}}}` : `[${label}]`}`,
      )
    }
    out.push('  end')
  }
  for (const e of view.edges) {
    const label = `"${mermaidText(e.label)}"`
    const arrow = e.kind === 'link' ? `-. ${label} .->` : e.kind === 'import' ? `==>|${label}|` : `-->|${label}|`
    out.push(`  ${e.from} ${arrow} ${e.to}`)
  }
  view.bindings.forEach((_, i) => out.push(`  classDef binding${i} fill:${bindingColour(i)},stroke:#555`))
  for (const group of view.groups) out.push(`  class ${group.key} binding${group.binding}`)
  return out.join('\n') + '\n'
}
