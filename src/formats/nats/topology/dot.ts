/**
 * A topology in Graphviz DOT: applications and JetStream bindings as clusters, channels inside their
 * application, the same edges as the Mermaid picture. Labels are DOT strings with `"` and `\`
 * escaped, `&` written `&amp;` (Graphviz decodes entities in a label: `&#8238;` in a document would
 * draw a real direction override) and line terminators removed, so no document text can leave its
 * string or become another character.
 */
import type { Topology } from './projection.js'
import { bindingColour, topologyView, type ViewOptions } from './view.js'

export function dotString(text: string): string {
  return `"${text
    .replace(/[\\"]/g, (c) => `\\${c}`)
    .replace(/&/g, '&amp;')
    .replace(/[\n\r\u2028\u2029]/g, ' ')}"`
}

export function toDot(topology: Topology, options: ViewOptions = {}): string {
  const view = topologyView(topology, options)
  // Imports join applications: an edge between an anchor node of each cluster, clipped to the clusters.
  const anchor = new Map<string, string>()
  const out = [
    'digraph topology {',
    '  rankdir=LR;',
    '  compound=true;',
    '  node [fontname="Helvetica", fontsize=11];',
    '  edge [fontname="Helvetica", fontsize=9];',
  ]
  for (const group of view.groups) {
    out.push(
      `  subgraph cluster_${group.key} {`,
      `    label=${dotString(group.label)};`,
      `    style=filled; color="#555555"; fillcolor="${bindingColour(group.binding)}";`,
    )
    anchor.set(group.key, group.nodes[0]?.key ?? `${group.key}_anchor`)
    if (group.nodes.length === 0) out.push(`    ${group.key}_anchor [shape=point, style=invis];`)
    for (const n of group.nodes) {
      const shape = n.shape === 'stream' ? 'cylinder' : n.shape === 'consumer' ? 'oval' : n.shape === 'more' ? 'note' : 'box'
      out.push(`    ${n.key} [label=${dotString(n.label)}, shape=${shape}, style=filled, fillcolor="#ffffff"];`)
    }
    out.push('  }')
  }
  for (const e of view.edges) {
    if (e.kind === 'import') {
      out.push(`  ${anchor.get(e.from)} -> ${anchor.get(e.to)} [label=${dotString(e.label)}, style=bold, ltail=cluster_${e.from}, lhead=cluster_${e.to}];`)
      continue
    }
    out.push(`  ${e.from} -> ${e.to} [label=${dotString(e.label)}${e.kind === 'link' ? ', style=dashed' : ''}];`)
  }
  out.push('}')
  return out.join('\n') + '\n'
}
