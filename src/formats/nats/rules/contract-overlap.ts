import { positions } from '../address.js'
import { NatsContext } from '../context.js'
import { isObject } from '../document.js'
import { ChannelIndex } from '../channel-index.js'
import type { Language } from '../languages.js'
import { natsRule } from './rule.js'
import { distinctDocuments } from './bundle.js'
import { resolvedLinks, sameType } from './links.js'

/** Complexity (each rule here, worst case on any input under the size limits): every contract's channels indexed once in one ChannelIndex; a channel meets only the channels of its most selective position, and only the pairs of contracts that share a subject are compared. */

/**
 * "Within one application/deployment binding, concrete channel languages must be disjoint ...
 * Across applications, intentional overlap requires a link; partial overlap is rejected." Overlap
 * is a property of the bundle (one deployment binding), so every pair of its contracts with one
 * binding is compared, whichever document is compiled: an overlap is reported at the compiled
 * document's channel, and between two other contracts at the second one's (by path). A pair is
 * allowed only with exactly equal languages and a link (declared by either contract) between
 * operations on the two channels. Each contract's channels are indexed once (ChannelIndex), so a
 * channel meets only the channels of its most selective position.
 */
export const contractOverlap = natsRule({
  code: 'NATS_CONTRACT_OVERLAP',
  description:
    'A channel shares subjects with a channel of another contract of the bundle (one deployment binding) without being an exactly equal language covered by a link; found whichever document is compiled.',
  check(ctx, report) {
    const documents = new Map([[ctx.main.file, ctx.main], ...ctx.input.documents])
    // One contract per distinct bytes: the same (contract, version) with the same bytes at two paths
    // of the bundle is one document (the identity rule allows it), not two that overlap each other;
    // a link to either path is a link to it.
    const { distinct, canonical } = distinctDocuments(ctx)
    const contexts = [ctx, ...distinct.map((main) => new NatsContext({ ...ctx.input, documents, main }))]
    // One contract alone has no pair to compare: its links and languages are not needed.
    if (contexts.length < 2) return
    const binding = (c: NatsContext) => (isObject(c.profile.deployment) ? c.profile.deployment.binding : undefined)
    const linked = new Set<string>()
    for (const c of contexts) {
      for (const { send, receive } of resolvedLinks(c)) {
        const a = send.ctx.channelOf(send.ctx.standard('operations')[send.id])
        const b = receive.ctx.channelOf(receive.ctx.standard('operations')[receive.id])
        const [sendFile, receiveFile] = [canonical(send.ctx.main.file), canonical(receive.ctx.main.file)]
        linked.add(`${sendFile}#${a}|${receiveFile}#${b}`)
        linked.add(`${receiveFile}#${b}|${sendFile}#${a}`)
      }
    }
    const languages = contexts.map((c) =>
      c.channelList.flatMap((channel) => {
        const types = channel.tokens && c.channelTypes(channel)
        return channel.tokens && types ? [{ id: channel.id, language: positions(channel.tokens, types) as Language }] : []
      }),
    )
    // The pairs of contracts that share a subject at all, found through one index of every
    // contract's channels: each channel meets only the channels of its most selective position,
    // whatever contract they belong to. Comparing every pair of contracts, each through an index
    // of its own, was n² pairs a compile, n³ for a topology of n applications (an outside pass: 500
    // applications of one channel each took 36 s, 1,000 of two over 300 s).
    const everyChannel = new ChannelIndex()
    const contractOf = new Map<object, number>()
    languages.forEach((list, k) => {
      for (const entry of list) {
        contractOf.set(entry, k)
        everyChannel.add(entry)
      }
    })
    const pairs = new Set<number>()
    const n = contexts.length
    languages.forEach((list, k) => {
      for (const entry of list)
        for (const other of everyChannel.overlapping(entry.language)) {
          const j = contractOf.get(other)!
          if (j > k) pairs.add(k * n + j)
        }
    })
    const indexes = new Map<number, ChannelIndex>()
    const indexOf = (j: number) => {
      let index = indexes.get(j)
      if (!index) {
        index = new ChannelIndex()
        for (const entry of languages[j]!) index.add(entry)
        indexes.set(j, index)
      }
      return index
    }
    // Each pair in the order every pair was compared before (i < j), so that the reports keep theirs.
    for (const pair of [...pairs].sort((a, b) => a - b)) {
      const [i, j] = [Math.floor(pair / n), pair % n]
      const [mine, other] = [contexts[i]!, contexts[j]!]
      if (binding(mine) !== binding(other)) continue
      // Reported in the compiled document when it is one of the two, else in the second.
      const [at, away] = i === 0 ? [mine, other] : [other, mine]
      const own = i === 0 ? languages[i]! : languages[j]!
      const index = indexOf(i === 0 ? j : i)
      for (const channel of own) {
        for (const theirs of index.overlapping(channel.language)) {
          const a = channel.language
          const b = theirs.language
          const equal = a.length === b.length && a.every((t, k) => sameType(t, b[k]!))
          if (equal && linked.has(`${at.main.file}#${channel.id}|${away.main.file}#${theirs.id}`)) continue
          report.in(
            at.main,
            ctx.pointer('channels', channel.id, 'address'),
            `Channel ${JSON.stringify(channel.id)} shares subjects with ${JSON.stringify(theirs.id)} of contract ${JSON.stringify(away.profile.contract)} (same deployment binding); ${equal ? 'an intended overlap needs an import and a link between their operations' : 'a partial overlap between contracts is rejected'}.`,
            { contract: away.profile.contract, channel: theirs.id },
          )
        }
      }
    }
  },
})
