/**
 * A topology as Mermaid flowchart text that GitHub renders as it is: applications and JetStream
 * bindings as subgraphs, channels inside their application, links as dotted arrows, captures and
 * consumers as arrows, imports as thick arrows between applications, one colour per binding.
 * Every label from a document is quoted with Mermaid's entity codes (`#quot;`, `#lt;`, ...), so no
 * document text can end a label or start markup.
 */
import type { Topology } from './projection.js'
import { bindingColour, topologyView, type ViewOptions } from './view.js'

/** Document text inside a quoted Mermaid label. */
export function mermaidText(text: string): string {
  // Braces, brackets and parentheses are plain text inside a quoted label: left as they are, so subjects stay readable.
  return text.replace(/[#"<>&`|\\\n\r\u2028\u2029]/g, (c) => `#${c.codePointAt(0)};`)
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
