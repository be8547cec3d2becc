/**
 * What a reader sees of a topology picture in Chromium: whether all of it can be seen (inside the
 * window, or in a container that scrolls sideways to it, never clipped), the smallest text as
 * rendered (its font size times the picture's scale), and the kinds the legend lists against the
 * kinds of boxes and arrows drawn.
 */
import type { Page } from 'playwright-core'

export interface PictureFacts {
  /** The whole picture is in the window, or its scroll container reaches both of its edges. */
  reachable: boolean
  /** The page itself does not scroll sideways: only the picture's container does. */
  pageFits: boolean
  /** The smallest rendered text of the picture, in CSS pixels. */
  smallestText: number
  /** Kinds the legend lists (`node channel`, `edge link`, ...), sorted. */
  legend: string[]
  /** Kinds of the boxes and arrows drawn, sorted. */
  drawn: string[]
}

/** The facts of the `index`th picture (`svg`) of the page. */
export function pictureFacts(page: Page, index = 0): Promise<PictureFacts> {
  return page.evaluate((index) => {
    const svg = document.querySelectorAll('svg')[index] as SVGSVGElement
    const scale = svg.getBoundingClientRect().width / svg.viewBox.baseVal.width
    const smallestText = Math.min(...[...svg.querySelectorAll('text')].map((t) => parseFloat(getComputedStyle(t).fontSize) * scale))
    // The nearest ancestor that scrolls sideways (the document itself for a picture opened alone).
    let container: Element | null = svg.parentElement
    while (container && !['auto', 'scroll'].includes(getComputedStyle(container).overflowX)) container = container.parentElement
    const scroller = container ?? document.scrollingElement!
    const inside = () => {
      const box = svg.getBoundingClientRect()
      const frame = container ? container.getBoundingClientRect() : { left: 0, right: innerWidth }
      return { left: box.left >= frame.left - 1, right: box.right <= frame.right + 1 }
    }
    scroller.scrollLeft = 0
    const start = inside()
    scroller.scrollLeft = scroller.scrollWidth
    const end = inside()
    scroller.scrollLeft = 0
    const kinds = (selector: string, prefix: string) => [...svg.querySelectorAll(selector)].map((e) => `${prefix} ${e.classList[1]}`)
    return {
      reachable: start.left && end.right,
      pageFits: container === null || document.scrollingElement!.scrollWidth <= innerWidth,
      smallestText,
      legend: [...svg.querySelectorAll('.legend-entry')]
        .map((e) => e.getAttribute('data-kind')!)
        .filter((k) => k !== 'binding')
        .sort(),
      drawn: [...new Set([...kinds('g.node', 'node'), ...kinds('polyline.edge', 'edge')])].sort(),
    }
  }, index)
}
