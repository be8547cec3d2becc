// After editing a contract or the native artifact here: fills the digests the bundle pins (the
// import of orders and the ORDERS artifact in fulfilment), then bundle.lock.json. `node examples/nats-orders/relock.mjs`
import { createHash } from 'node:crypto'
import { readFileSync, writeFileSync } from 'node:fs'
import { join } from 'node:path'

const root = import.meta.dirname
const sha = (rel) =>
  createHash('sha256')
    .update(readFileSync(join(root, rel)))
    .digest('hex')
const fulfilment = join(root, 'fulfilment/asyncapi.yaml')
const text = readFileSync(fulfilment, 'utf8')
  .replace(/(path: orders\/asyncapi\.yaml, sha256: )\w+/, `$1${sha('orders/asyncapi.yaml')}`)
  .replace(/(path: native\/streams\.json, sha256: )\w+/, `$1${sha('native/streams.json')}`)
writeFileSync(fulfilment, text)
const entries = ['fulfilment/asyncapi.yaml', 'native/streams.json', 'orders/asyncapi.yaml'].map((path) => ({ path, sha256: sha(path) }))
writeFileSync(join(root, 'bundle.lock.json'), JSON.stringify({ entries }, null, 2) + '\n')
