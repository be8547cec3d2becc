/**
 * Hostile document text for the topology pictures (issue 29): a Mermaid init directive that restyles
 * the picture and fetches a URL, label and string terminators of every output language, script and
 * markup, a newline and a bidi override. Two ways in: a real bundle whose free-text members (the
 * deployment binding, the contract id, the version) carry them, as an attacker's contract would; and
 * a projection built by hand with them in every label a picture draws (channel addresses, stream,
 * consumer and operation names, filters), members the compiler refuses them in today.
 */
import { createHash } from 'node:crypto'
import { mkdirSync, readFileSync, writeFileSync } from 'node:fs'
import { join } from 'node:path'
import type { Topology, TopologyEdge, TopologyNode } from '../../src/index.js'
import { consumerBundle } from '../../bench/topology-bundles.js'

/** The directive of the issue, as written. */
export const DIRECTIVE = `%%{init: {'themeCSS': '.node rect{fill:red} @import url(http://127.0.0.1:9/x)'}}%%`

export const HOSTILE = [
  DIRECTIVE,
  '"]; X[ "',
  '</script><script>globalThis.__PWNED=1</script>',
  '<img src=x onerror="globalThis.__PWNED=2">',
  '{{',
  '}}',
  "'",
  '#',
  ';',
  'line\nbreak',
  'abc\u202Edef',
  '-->',
  ']]>',
] as const

/**
 * A one-application bundle (one channel, one stream, one consumer) whose deployment binding is the
 * directive, as in the issue; with `everywhere`, its contract id and version carry every other
 * hostile string too. Returns the folder.
 */
export function hostileBundle(dir: string, everywhere = false): string {
  mkdirSync(dir, { recursive: true })
  consumerBundle(dir, 1)
  const file = join(dir, 'crowd/asyncapi.yaml')
  const doc = JSON.parse(readFileSync(file, 'utf8'))
  doc['x-nats-contract'].deployment.binding = DIRECTIVE
  if (everywhere) {
    doc['x-nats-contract'].contract = HOSTILE.slice(1, 7).join(' ')
    doc.info.version = HOSTILE.slice(7).join(' ')
  }
  writeFileSync(file, JSON.stringify(doc))
  const sha256 = createHash('sha256').update(readFileSync(file)).digest('hex')
  writeFileSync(join(dir, 'bundle.lock.json'), JSON.stringify({ entries: [{ path: 'crowd/asyncapi.yaml', sha256 }] }))
  return dir
}

/**
 * A projection with a hostile string in every label a picture draws: two applications (contract
 * ids), their channels (one per string), links between them (operation names), a stream and a
 * consumer per string (names, owner, binding), consumer filters and capture labels.
 */
export function hostileTopology(): Topology {
  const nodes: TopologyNode[] = []
  const edges: TopologyEdge[] = []
  const apps = [HOSTILE[0], HOSTILE[1]]
  for (const contract of apps)
    nodes.push({ id: `app:${contract}`, kind: 'application', contract, label: `${contract} ${HOSTILE[2]}`, data: { contract, binding: HOSTILE[0] } })
  HOSTILE.forEach((text, i) => {
    const contract = apps[i % 2]!
    const channel = `channel:${contract}/c${i}`
    const operation = `operation:${contract}/${text}`
    nodes.push({ id: channel, kind: 'channel', contract, label: text, data: { channel: text, address: text } })
    nodes.push({ id: operation, kind: 'operation', contract, label: `send ${text}`, data: {} })
    edges.push({ from: operation, to: channel, kind: 'operation-channel', label: 'send' })
    if (i > 0) edges.push({ from: `operation:${apps[(i - 1) % 2]}/${HOSTILE[i - 1]}`, to: operation, kind: 'link', label: 'link' })
    const stream = `stream:${HOSTILE[0]}/${text}`
    nodes.push({ id: stream, kind: 'stream', contract, label: text, data: { binding: HOSTILE[0], name: text, owner: text } })
    nodes.push({
      id: `consumer:${HOSTILE[0]}/${text}/${text}`,
      kind: 'consumer',
      label: text,
      data: { binding: HOSTILE[0], stream: text, name: text, owner: text },
    })
    edges.push({ from: `consumer:${HOSTILE[0]}/${text}/${text}`, to: stream, kind: 'consumer-stream', label: text })
    edges.push({ from: channel, to: stream, kind: 'capture', label: text })
  })
  edges.push({ from: `app:${apps[0]}`, to: `app:${apps[1]}`, kind: 'import', label: HOSTILE[3] })
  return { nodes, edges }
}
