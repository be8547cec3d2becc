/**
 * Bounded layout of the topology pictures (issue 29): ELK took 270 s and 1.31 GB on a 5,004-node
 * bundle (one stream with 5,000 consumers), and the dev page laid the picture out again on every
 * load. Now the view collapses what a reader cannot take in, ELK lays out only views within its
 * budget, a linear layered layout takes the rest, and the dev page keeps a picture until its
 * projection changes. Time bounds here are generous and only prove that a layout terminates; the
 * growth is measured by `bench/hostile-topology.ts` (n vs 10n).
 */
import { rmSync } from 'node:fs'
import { join } from 'node:path'
import { afterAll, describe, expect, it } from 'vitest'
import { ContractCompiler } from '../src/core/compile.js'
import { formats } from '../src/formats/index.js'
import { toHtml, toSvg, topology, type Topology } from '../src/index.js'
import { ELK_BUDGET, elementsOf, type Box } from '../src/formats/nats/topology/layout.js'
import { layeredLayout } from '../src/formats/nats/topology/layered-layout.js'
import { svgOf } from '../src/formats/nats/topology/svg.js'
import { topologyView } from '../src/formats/nats/topology/view.js'
import { DevRegistry } from '../src/plugin/dev-page.js'
import { natsBundle } from '../bench/generate.js'
import { consumerBundle } from '../bench/topology-bundles.js'

const tmp = join(import.meta.dirname, '.tmp', `topology-layout-${process.pid}`)
afterAll(() => rmSync(tmp, { recursive: true, force: true }))

const projection = async (dir: string): Promise<Topology> => {
  const r = await topology(dir)
  expect(r.diagnostics.filter((d) => d.severity === 'error')).toEqual([])
  return r.topology!
}

/** Heap growth (MB) of drawing the picture (its time is bench/hostile-topology.ts's to measure). */
async function drawn(draw: () => Promise<string> | string) {
  const heap = process.memoryUsage().heapUsed
  const text = await draw()
  return { text, heapMB: (process.memoryUsage().heapUsed - heap) / 2 ** 20 }
}

/** No two node boxes overlap and every node lies inside its group (a sweep over x: O(n log n) plus overlaps). */
function checkBoxes(view: ReturnType<typeof topologyView>, boxes: ReadonlyMap<string, Box>) {
  // The offenders are collected and asserted once: an `expect` per node and per pair (with its message
  // built each time) was a large part of the file's CPU time on 5,000 nodes.
  const nodes: Box[] = []
  const outside: string[] = []
  for (const g of view.groups) {
    const outer = boxes.get(g.key)!
    for (const n of g.nodes) {
      const b = boxes.get(n.key)!
      if (!(b.x >= outer.x && b.y >= outer.y && b.x + b.width <= outer.x + outer.width && b.y + b.height <= outer.y + outer.height)) outside.push(n.key)
      nodes.push(b)
    }
  }
  expect(outside, 'nodes outside their group').toEqual([])
  nodes.sort((a, b) => a.x - b.x)
  const overlaps: string[] = []
  for (let i = 0; i < nodes.length; i++)
    for (let j = i + 1; j < nodes.length && nodes[j]!.x < nodes[i]!.x + nodes[i]!.width; j++) {
      const [a, b] = [nodes[i]!, nodes[j]!]
      if (!(a.y + a.height <= b.y || b.y + b.height <= a.y)) overlaps.push(`${JSON.stringify(a)} overlaps ${JSON.stringify(b)}`)
    }
  expect(overlaps).toEqual([])
}

describe('the 5,004-node bundle of the issue (one stream, 5,000 consumers)', () => {
  it('is drawn as SVG and HTML with the consumers past 12 collapsed into one node that says so, in bounded memory', async () => {
    const t = await projection(consumerBundle(join(tmp, 'crowd-5000'), 5000))
    expect(t.nodes).toHaveLength(5004)
    const svg = await drawn(() => toSvg(t))
    expect(svg.text).toContain('+4988 more consumers of EVENTS')
    expect((svg.text.match(/<g class="node consumer">/g) ?? []).length).toBe(12)
    expect(svg.heapMB).toBeLessThan(100)
    const html = await drawn(() => toHtml(t))
    expect(html.text).toContain('+4988 more consumers of EVENTS')
    expect(html.heapMB).toBeLessThan(100)
  })

  it('uncollapsed (every consumer a node), the plain layered layout places all 5,002 nodes without overlap, in bounded memory', async () => {
    const t = await projection(consumerBundle(join(tmp, 'crowd-5000-all'), 5000))
    const view = topologyView(t, { maxConsumers: Infinity })
    expect(view.groups.flatMap((g) => g.nodes)).toHaveLength(5002)
    expect(elementsOf(view)).toBeGreaterThan(ELK_BUDGET)
    const svg = await drawn(() => svgOf(view, layeredLayout(view)))
    expect(svg.heapMB).toBeLessThan(100)
    expect((svg.text.match(/<g class="node consumer">/g) ?? []).length).toBe(5000)
    expect(svg.text).toContain(`Plain layered layout: ${elementsOf(view)} elements`)
    checkBoxes(view, layeredLayout(view).boxes)
  })
})

describe('views past the ELK budget', () => {
  it('60 applications x 5 channels: the plain layered layout, said so under the legend, deterministic, no overlap', async () => {
    const t = await projection(natsBundle(join(tmp, 'apps-60x5'), 60, 5))
    const view = topologyView(t)
    expect(elementsOf(view)).toBeGreaterThan(ELK_BUDGET)
    const svg = await toSvg(t)
    expect(svg).toContain(`Plain layered layout: ${elementsOf(view)} elements, past the ${ELK_BUDGET} ELK lays out.`)
    expect(await toSvg(t)).toBe(svg)
    expect((svg.match(/<g class="group /g) ?? []).length).toBe(view.groups.length)
    checkBoxes(view, layeredLayout(view).boxes)
    // Applications feed their bindings' streams: the JetStream groups are to the right of every application.
    const laid = layeredLayout(view)
    const right = Math.max(...view.groups.filter((g) => g.kind === 'application').map((g) => laid.boxes.get(g.key)!.x))
    for (const g of view.groups.filter((g) => g.kind === 'jetstream')) expect(laid.boxes.get(g.key)!.x).toBeGreaterThan(right)
  })

  it('the example bundle stays with ELK', async () => {
    const t = await projection(join(import.meta.dirname, '../examples/nats-orders'))
    expect(elementsOf(topologyView(t))).toBeLessThanOrEqual(ELK_BUDGET)
    expect(await toSvg(t)).not.toContain('Plain layered layout')
  })
})

describe('the dev page keeps a picture until its projection changes', () => {
  it('a second load lays nothing out; a changed bundle is laid out again, once', async () => {
    const dir = join(tmp, 'dev-page')
    const file = join(consumerBundle(dir, 20), 'crowd/asyncapi.yaml')
    const compiler = new ContractCompiler({ formats })
    const registry = new DevRegistry()
    registry.record(await compiler.compile(file))
    const first = await registry.page(dir, compiler)
    expect(registry.layouts).toBe(1)
    expect(first).toContain('+8 more consumers of EVENTS')
    expect(await registry.page(dir, compiler)).toBe(first)
    expect(registry.layouts).toBe(1)
    // A consumer more: another projection, another picture.
    consumerBundle(dir, 21)
    registry.record(await compiler.compile(file))
    const changed = await registry.page(dir, compiler)
    expect(registry.layouts).toBe(2)
    expect(changed).toContain('+9 more consumers of EVENTS')
    await registry.page(dir, compiler)
    expect(registry.layouts).toBe(2)
  })
})
