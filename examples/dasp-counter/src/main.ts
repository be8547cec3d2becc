// A DASP client: its selection request comes from the contract (counter.dasp.json, checked and
// compiled at build time); it checks that the host confirmed exactly that, saves the session's
// protection floor, and refuses to resume a session on anything weaker.
import { mkdtempSync, readFileSync, rmSync, writeFileSync } from 'node:fs'
import { tmpdir } from 'node:os'
import { join } from 'node:path'
import { attributeNames, checkPlacement, checkSessionFloor, isExactSelection, selectionRequest, sessionFloor } from '../counter.dasp.json'

const host = process.env.DASP_HOST ?? 'http://127.0.0.1:3100'
const AUTHORITY = 'https://dasp-protocol.github.io/dasp/contracts/proof-of-authority'

async function setup(query = ''): Promise<unknown> {
  const response = await fetch(`${host}/setup${query}`, { method: 'POST', body: JSON.stringify(selectionRequest), signal: AbortSignal.timeout(5000) })
  return ((await response.json()) as { confirmed: unknown }).confirmed
}
async function offer(query = ''): Promise<unknown> {
  const response = await fetch(`${host}/offer${query}`, { signal: AbortSignal.timeout(5000) })
  return ((await response.json()) as { offered: unknown }).offered
}
const verdict = (check: ReturnType<typeof checkSessionFloor>) => (check.ok ? 'resumed' : `refused (${check.code}): ${check.reason}`)

console.log(`requesting ${selectionRequest.extensions.map((e) => `${e.uri.split('/').pop()} ${e.version} (${e.scope})`).join(', ')}`)

// A host that confirms something other than what was asked is refused before the session starts.
console.log(`altered confirmation: ${isExactSelection(await setup('?alter=rekey')) ? 'accepted' : 'refused, not the selection requested'}`)
console.log(`setup: ${isExactSelection(await setup()) ? 'confirmed exactly' : 'refused'}`)

// The protection floor is saved with the session (here a file) and read back to resume it.
const dir = mkdtempSync(join(tmpdir(), 'dasp-counter-'))
const record = join(dir, 'session.json')
writeFileSync(record, JSON.stringify(sessionFloor))
const saved: unknown = JSON.parse(readFileSync(record, 'utf8'))
rmSync(dir, { recursive: true, force: true })
console.log(`session floor saved: ${sessionFloor.extensions.map((e) => `${e.uri.split('/').pop()} {${Object.keys(e.settings).join(', ')}}`).join('; ')}`)

console.log(`resume as confirmed: ${verdict(checkSessionFloor(saved, await offer()))}`)
console.log(`resume without proof of authority: ${verdict(checkSessionFloor(saved, await offer(`?drop=${encodeURIComponent(AUTHORITY)}`)))}`)
// Only settings that persist with the session are in the floor: the cipher does, the rekey interval
// is renegotiated per connection.
console.log(`resume with another cipher: ${verdict(checkSessionFloor(saved, await offer('?cipher=aes256gcm')))}`)
console.log(`resume with another rekey interval (a connection setting): ${verdict(checkSessionFloor(saved, await offer('?rekey=86400')))}`)
console.log(`resume at another version: ${verdict(checkSessionFloor(saved, await offer('?version=draft-02')))}`)
console.log(`resume with no saved record: ${verdict(checkSessionFloor(undefined, await offer()))}`)
// A damaged record is not an empty floor either: it is refused, never read as "nothing required".
console.log(`resume with a damaged record: ${verdict(checkSessionFloor({ extensions: [null] }, await offer()))}`)

// The selected extensions' attributes, checked on events before they are sent.
console.log(`attributes: ${attributeNames.join(', ')}`)
const placed = checkPlacement({ type: 'dasp.v1.command', daspauthority: 'grant-7' })
const misplaced = checkPlacement({ type: 'dasp.v1.event', daspauthority: 'grant-7' })
const missing = checkPlacement({ type: 'dasp.v1.command' })
console.log(`command with authority: ${placed.ok ? 'ok' : placed.reason}`)
console.log(`event with authority: ${misplaced.ok ? 'ok' : `${misplaced.code}: ${misplaced.reason}`}`)
console.log(`command without authority: ${missing.ok ? 'ok' : `${missing.code}: ${missing.reason}`}`)
// The value is a CloudEvents String (no control characters), and the encrypted outer carrier takes no attribute.
const control = checkPlacement({ type: 'dasp.v1.command', daspauthority: 'grant\u0000' })
const carrier = checkPlacement({ type: 'dasp.encrypted', daspauthority: 'grant-7' })
console.log(`authority with a NUL: ${control.ok ? 'ok' : `${control.code}: ${control.reason}`}`)
console.log(`authority on the encrypted carrier: ${carrier.ok ? 'ok' : `${carrier.code}: ${carrier.reason}`}`)
