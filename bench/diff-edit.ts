/**
 * The edit `bench/diff.ts` diffs (and test/diff-fast-paths.test.ts checks): what teams change. The
 * shared `Money` schema that every payload reaches gets a required member (narrows: breaks every
 * publisher), every `maxItems: 16` becomes 8 and every stream keeps messages half as long. Apart
 * from bench/diff.ts so that a test can make the edit without loading the built package.
 */
export function editedDocument(text: string): string {
  const start = text.indexOf('\n    Money:\n')
  const end = text.indexOf('additionalProperties: false', start)
  if (start < 0 || end < 0) throw new Error('bench/diff-edit.ts: the generated document has no shared Money schema')
  const money = text
    .slice(start, end)
    .replace('        - currency\n', '        - currency\n        - rate\n')
    .replace('      properties:\n', '      properties:\n        rate:\n          type: number\n')
  const edited = (text.slice(0, start) + money + text.slice(end))
    .replaceAll('maxItems: 16', 'maxItems: 8')
    .replaceAll('max_age: 86400000000000', 'max_age: 43200000000000')
  if (!money.includes('rate') || !edited.includes('maxItems: 8') || !edited.includes('max_age: 43200000000000'))
    throw new Error('bench/diff-edit.ts: the edits no longer match the generated document')
  return edited
}

/**
 * An edit of three channels' payloads (a status value renamed in the first, middle and last payload
 * that has one: breaks each channel's publishers and subscribers), the rest of the document as it
 * was: what most reviews of a contract change look like, beside the edit above that reaches every
 * payload.
 */
export function fewChannelsEdited(text: string): string {
  const sites = [...text.matchAll(/- state-(\d+)\n/g)]
  if (sites.length < 3) throw new Error('bench/diff-edit.ts: the generated document has fewer than three status values')
  const chosen = new Set([0, Math.floor(sites.length / 2), sites.length - 1].map((i) => sites[i]!.index!))
  let out = ''
  let at = 0
  for (const site of sites) {
    if (!chosen.has(site.index!)) continue
    out += text.slice(at, site.index) + `- state-${site[1]}-renamed\n`
    at = site.index! + site[0].length
  }
  return out + text.slice(at)
}
