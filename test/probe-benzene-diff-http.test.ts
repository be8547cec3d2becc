// Outside differential test of `contracts diff` for Benzene contract documents.
//
// For each (old, new) pair of small contracts, the diff's verdict per audience (client, service) is
// checked against what the generated modules really do when they exchange messages over HTTP on
// 127.0.0.1 (a node:http server on port 0):
//   - "breaks client":  an OLD client talking to a NEW service (a request the old client validly sends
//     is refused by the new service's validation, or a response/event the new service validly
//     produces is refused by the old client's validation);
//   - "breaks service": a NEW client talking to an OLD service (the mirror).
// The service side validates with the generated module of its own version (docs/benzene.md: the
// request validator is what `send` checks before sending, the response validator what it checks on
// arrival; an event message is "validated like a request" by `publish`).
// Only the built package is used: dist/cli.js (the `contracts` bin), `compile` from the package root,
// `createHttpSender` from unplugin-contracts/runtime/http.
//
// Readings taken from the docs (docs/benzene.md "Diff", docs/diff.md, docs/diff-schemas.md):
//   - a request is sent by clients and received by the service; a response and an event message the
//     reverse. Widening breaks the receiver, narrowing the sender;
//   - a topic (or version) the other side lacks counts against the old clients only (a removed or
//     re-versioned request gets no handler, a removed event is never published); a new topic breaks
//     nobody, so a new client calling it on the old service is not counted;
//   - `benzene-hash-changed` says which deployed clients report drift, not a broken call: it is left
//     out of the verdicts; a `warning` is "cannot be proven either way", so it flags a cell for
//     soundness (a) but is not "breaking" for completeness (c).
// Tests per pair: harness (the edit breaks exactly the cells it was built to break, over HTTP),
// (a) soundness, (b1) witnesses show real breaks, (b2) witnesses are whole payloads, (c) completeness
// and precision on these clear cases, (d) equivalent rewrites flag nothing.
// Written apart from the code, from the docs and the specification only (an outside pass), and kept
// in the suite as a differential test: its first run found a missed break (a discriminator mapping
// replacing a oneOf member's name), an equivalent mapping reported breaking, a nullable beside an
// untyped allOf left unknown, component witnesses that were no whole payload, and a `both` change
// with one witness. Its report described each one.
//
// Every wait is bounded (HTTP timeouts, spawn timeouts); only 127.0.0.1 is used.
// PROBE_DEBUG=1 writes every pair's findings and observed breaks to test/.tmp/benzene-diff-http/debug.json.
import { spawnSync } from 'node:child_process'
import { mkdirSync, rmSync, writeFileSync } from 'node:fs'
import { createServer, type Server } from 'node:http'
import { dirname, join, resolve } from 'node:path'
import { createRequire } from 'node:module'
import { fileURLToPath } from 'node:url'
import { afterAll, beforeAll, describe, expect, it } from 'vitest'
import type { ContractCompiler as ContractCompilerType } from 'unplugin-contracts'
import type { createHttpSender as CreateHttpSender } from 'unplugin-contracts/runtime/http'

const HERE = dirname(fileURLToPath(import.meta.url))
const CLI = resolve(HERE, '../dist/cli.js')
const TMP = join(HERE, '.tmp', 'benzene-diff-http')
// The package (its `compile` API, its HTTP sender) and the modules it generates are loaded by Node
// itself, as an application loads them (require of an ES module, Node >= 20.19), not through
// vitest's transform: the same code, at a fraction of the CPU.
const nodeRequire = createRequire(import.meta.url)
const { ContractCompiler } = nodeRequire('unplugin-contracts') as { ContractCompiler: typeof ContractCompilerType }
const { createHttpSender } = nodeRequire('unplugin-contracts/runtime/http') as { createHttpSender: typeof CreateHttpSender }

// ---------------------------------------------------------------------------------------------
// Contract documents
// ---------------------------------------------------------------------------------------------
type J = any
const ref = (name: string) => ({ $ref: `#/components/schemas/${name}` })
const doc = (requests: J[], events: J[], schemas: J) => ({
  openapi: '3.0.1',
  info: { title: 'shop-api', description: '', version: '' },
  messageEndpoint: '/benzene/invoke',
  transports: ['benzene', 'sqs'],
  requests,
  events,
  components: { schemas },
})
const rq = (topic: string, request: J, response: J, more: J = {}) => ({ topic, ...more, request, response })
const ev = (topic: string, message: J, more: J = {}) => ({ topic, ...more, message })
const edit = (d: J, f: (c: J) => unknown) => {
  const c = structuredClone(d)
  const r: J = f(c)
  return r && typeof r === 'object' && 'openapi' in r ? r : c
}
const S = (d: J) => d.components.schemas

// Base A: orders (.NET producer style: closed objects, nullable, PascalCase)
const ORDERS = doc(
  [
    rq('orders:create', ref('CreateOrder'), ref('Order'), { httpMappings: [{ method: 'POST', path: '/orders' }] }),
    rq('orders:get', ref('GetOrder'), ref('Order')),
  ],
  [ev('orders:created', ref('OrderCreated'), { version: 'v1' })],
  {
    CreateOrder: {
      type: 'object',
      required: ['Sku', 'Qty'],
      properties: {
        Sku: { type: 'string', minLength: 1, maxLength: 32 },
        Qty: { type: 'integer', minimum: 1, maximum: 100 },
        Weight: { type: 'number' },
        Count: { type: 'integer' },
        Note: { type: 'string', nullable: true },
        Currency: ref('Currency'),
      },
      additionalProperties: false,
    },
    Currency: { type: 'string', enum: ['EUR', 'USD'] },
    GetOrder: { type: 'object', required: ['Id'], properties: { Id: { type: 'string', pattern: '^ord-[0-9]+$' } } },
    Order: {
      type: 'object',
      required: ['Id', 'Sku', 'Qty', 'Status'],
      properties: {
        Id: { type: 'string', pattern: '^ord-[0-9]+$' },
        Sku: { type: 'string' },
        Qty: { type: 'integer' },
        Status: { type: 'string', enum: ['open', 'shipped'] },
        Lines: { type: 'array', items: ref('Line'), maxItems: 5 },
        Total: { type: 'number', nullable: true },
      },
      additionalProperties: false,
    },
    Line: { type: 'object', required: ['Sku'], properties: { Sku: { type: 'string' }, Qty: { type: 'integer' } }, additionalProperties: false },
    OrderCreated: {
      type: 'object',
      required: ['OrderId', 'Status'],
      properties: { OrderId: { type: 'string' }, Status: { type: 'string', enum: ['open', 'shipped'] }, At: { type: 'string', format: 'date-time' } },
      additionalProperties: false,
    },
  },
)
const ORDERS_SEEDS = {
  'orders:create': {
    request: [
      { Sku: 'sku-1', Qty: 2 },
      { Sku: 'sku-1', Qty: 2, Weight: 1.5, Count: 3, Note: 'n', Currency: 'EUR' },
      { Sku: 'sku-1', Qty: 2, Note: null, Currency: 'USD' },
    ],
    response: [
      { Id: 'ord-1', Sku: 'sku-1', Qty: 2, Status: 'open' },
      { Id: 'ord-12', Sku: 'sku-1', Qty: 2, Status: 'shipped', Lines: [{ Sku: 'a', Qty: 1 }, { Sku: 'b' }], Total: 10.5 },
      { Id: 'ord-7', Sku: 's', Qty: 1, Status: 'open', Lines: [{ Sku: 'a' }, { Sku: 'a' }, { Sku: 'a' }], Total: null },
    ],
  },
  'orders:get': {
    request: [{ Id: 'ord-1' }, { Id: 'ord-42', Expand: true }],
    response: [
      { Id: 'ord-1', Sku: 'x', Qty: 1, Status: 'open', Total: 3 },
      { Id: 'ord-9', Sku: 'x', Qty: 1, Status: 'shipped', Lines: [{ Sku: 'a' }] },
    ],
  },
  'orders:created': {
    event: [
      { OrderId: 'ord-1', Status: 'open' },
      { OrderId: 'ord-2', Status: 'shipped', At: '2024-02-29T10:00:00Z' },
    ],
  },
}

// Base B: shipping, with components nested two levels inside payloads
// request:  CreateShipment -> Recipient -> $ref Person -> Address -> $ref Address
// response: Shipment -> Courier -> $ref Courier -> Depot -> $ref Depot
const SHIPPING = doc([rq('shipping:create', ref('CreateShipment'), ref('Shipment'))], [], {
  CreateShipment: {
    type: 'object',
    required: ['Recipient', 'Parcels'],
    properties: {
      Recipient: ref('Person'),
      Parcels: { type: 'array', items: ref('Parcel'), maxItems: 3 },
      Fee: ref('Money'),
    },
    additionalProperties: false,
  },
  Person: { type: 'object', required: ['Name', 'Address'], properties: { Name: { type: 'string' }, Address: ref('Address') }, additionalProperties: false },
  Address: {
    type: 'object',
    required: ['Street', 'Zip'],
    properties: { Street: { type: 'string' }, Zip: { type: 'string', maxLength: 10 }, Country: { type: 'string', nullable: true } },
    additionalProperties: false,
  },
  Parcel: {
    type: 'object',
    required: ['Kg'],
    properties: { Kg: { type: 'number', minimum: 0 }, Labels: { type: 'object', additionalProperties: ref('Label') } },
    additionalProperties: false,
  },
  Label: { type: 'object', properties: { Text: { type: 'string', maxLength: 20 } }, additionalProperties: false },
  Money: {
    type: 'object',
    required: ['Amount', 'Currency'],
    properties: { Amount: { type: 'number' }, Currency: { type: 'string', enum: ['EUR', 'USD'] } },
    additionalProperties: false,
  },
  Shipment: {
    type: 'object',
    required: ['Id', 'Courier'],
    properties: { Id: { type: 'string' }, Courier: ref('Courier'), Fee: ref('Money') },
    additionalProperties: false,
  },
  Courier: { type: 'object', required: ['Name', 'Depot'], properties: { Name: { type: 'string' }, Depot: ref('Depot') }, additionalProperties: false },
  Depot: { type: 'object', required: ['City'], properties: { City: { type: 'string' }, Code: { type: 'string' } }, additionalProperties: false },
})
const SHIPPING_SEEDS = {
  'shipping:create': {
    request: [
      { Recipient: { Name: 'Ann', Address: { Street: 'Main 1', Zip: '1234' } }, Parcels: [] },
      {
        Recipient: { Name: 'Bob', Address: { Street: 'High 2', Zip: '12345678', Country: 'NL' } },
        Parcels: [{ Kg: 1 }, { Kg: 2.5 }],
        Fee: { Amount: 5, Currency: 'EUR' },
      },
      { Recipient: { Name: 'Cy', Address: { Street: 'Low 3', Zip: '1' } }, Parcels: [{ Kg: 1, Labels: { front: { Text: 'fragile' } } }] },
    ],
    response: [
      { Id: 'shp-1', Courier: { Name: 'DHL', Depot: { City: 'Ghent' } } },
      { Id: 'shp-2', Courier: { Name: 'UPS', Depot: { City: 'Lyon', Code: 'LY1' } }, Fee: { Amount: 4, Currency: 'USD' } },
    ],
  },
}

// Base C: users, with readOnly / writeOnly members
const USERS = doc([rq('users:create', ref('User'), ref('User')), rq('users:update', ref('UserPatch'), ref('User'))], [], {
  User: {
    type: 'object',
    required: ['Id', 'Name'],
    properties: { Id: { type: 'string' }, Name: { type: 'string' }, Password: { type: 'string', writeOnly: true } },
    additionalProperties: false,
  },
  UserPatch: {
    type: 'object',
    required: ['Name'],
    properties: { Name: { type: 'string' }, Version: { type: 'integer', readOnly: true } },
    additionalProperties: false,
  },
})
const USERS_SEEDS = {
  'users:create': {
    request: [{ Id: 'u1', Name: 'Ann' }, { Id: 'u2', Name: 'Bob', Password: 'pw' }, { Name: 'Cy' }],
    response: [
      { Id: 'u1', Name: 'Ann' },
      { Id: 'u2', Name: 'Bob', Password: 'pw' },
    ],
  },
  'users:update': { request: [{ Name: 'Ann' }, { Name: 'Ann', Version: 3 }], response: [{ Id: 'u1', Name: 'Ann' }] },
}

// Base D: pets, a discriminated oneOf (what a producer writes for a polymorphic payload)
const PETS = doc([rq('pets:register', ref('Pet'), ref('PetRecord')), rq('pets:get', ref('PetQuery'), ref('Pet'))], [], {
  Pet: {
    oneOf: [ref('Cat'), ref('Dog')],
    discriminator: { propertyName: 'petType', mapping: { cat: '#/components/schemas/Cat', dog: '#/components/schemas/Dog' } },
  },
  Cat: {
    type: 'object',
    required: ['petType', 'Name'],
    properties: { petType: { type: 'string' }, Name: { type: 'string' }, Indoor: { type: 'boolean' } },
    additionalProperties: false,
  },
  Dog: {
    type: 'object',
    required: ['petType', 'Name'],
    properties: { petType: { type: 'string' }, Name: { type: 'string' }, Breed: { type: 'string' } },
    additionalProperties: false,
  },
  Lion: {
    type: 'object',
    required: ['petType', 'Name'],
    properties: { petType: { type: 'string' }, Name: { type: 'string' }, Pride: { type: 'string' } },
    additionalProperties: false,
  },
  PetRecord: { type: 'object', required: ['Id'], properties: { Id: { type: 'string' } }, additionalProperties: false },
  PetQuery: { type: 'object', required: ['Id'], properties: { Id: { type: 'string' } }, additionalProperties: false },
})
const PET_SAMPLES = [
  { petType: 'cat', Name: 'Tom', Indoor: true },
  { petType: 'dog', Name: 'Rex', Breed: 'pug' },
  { petType: 'lion', Name: 'Leo', Pride: 'north' },
  { petType: 'dog', Name: 'Rex', Pride: 'south' },
  { petType: 'Cat', Name: 'Tom' },
  { petType: 'Dog', Name: 'Rex', Breed: 'pug' },
]
const PETS_SEEDS = {
  'pets:register': { request: PET_SAMPLES, response: [{ Id: 'p1' }] },
  'pets:get': { request: [{ Id: 'p1' }], response: PET_SAMPLES },
}
const PETS_IMPLICIT = edit(PETS, (c) => delete S(c).Pet.discriminator.mapping)

// Base E: a parent with a discriminator that its children extend through allOf (Swashbuckle/NSwag)
const ZOO = doc([rq('zoo:admit', ref('Animal'), ref('Receipt'))], [], {
  Animal: { type: 'object', required: ['kind'], properties: { kind: { type: 'string' }, Name: { type: 'string' } }, discriminator: { propertyName: 'kind' } },
  Cat: { allOf: [ref('Animal'), { type: 'object', properties: { Lives: { type: 'integer' } } }] },
  Dog: { allOf: [ref('Animal'), { type: 'object', properties: { Breed: { type: 'string' } } }] },
  Receipt: { type: 'object', required: ['Id'], properties: { Id: { type: 'string' } }, additionalProperties: false },
})
const ZOO_SEEDS = {
  'zoo:admit': {
    request: [
      { kind: 'Cat', Name: 'Tom' },
      { kind: 'Cat', Name: 'Tom', Lives: 9 },
      { kind: 'Dog', Breed: 'pug' },
      { kind: 'Lion', Name: 'Leo', Pride: 'north' },
    ],
    response: [{ Id: 'r1' }],
  },
}

// Base F: one component reached by a request of one topic and the response of another
const CART = doc([rq('cart:add', ref('Item'), ref('Ack')), rq('cart:list', ref('Ack'), { type: 'array', items: ref('Item') })], [], {
  Item: { type: 'object', required: ['Name'], properties: { Name: { type: 'string', maxLength: 20 }, Qty: { type: 'integer' } }, additionalProperties: false },
  Ack: { type: 'object', properties: { Ok: { type: 'boolean' } }, additionalProperties: false },
})
const CART_SEEDS = {
  'cart:add': { request: [{ Name: 'apple', Qty: 1 }, { Name: 'a long product name 1' }], response: [{ Ok: true }, {}] },
  'cart:list': { request: [{}], response: [[], [{ Name: 'apple' }, { Name: 'a long product name 1', Qty: 2 }]] },
}

// Base G: a catalog, with ASP.NET Core / Swashbuckle shapes (an allOf-wrapped $ref, a map, a oneOf of scalars)
const CATALOG = doc([rq('catalog:get', ref('CatalogQuery'), ref('Product')), rq('catalog:price', ref('PriceChange'), ref('CatalogQuery'))], [], {
  CatalogQuery: { type: 'object', required: ['Id'], properties: { Id: { type: 'string' } }, additionalProperties: false },
  PriceChange: {
    type: 'object',
    required: ['Id', 'Price'],
    properties: {
      Id: { type: 'string' },
      Price: { type: 'number', minimum: 0 },
      Limit: { type: 'integer' },
      Secret: { type: 'string', pattern: '^(?=.*\\d).{8,}$' },
      Day: { type: 'string' },
    },
    additionalProperties: false,
  },
  Category: { type: 'object', required: ['Name'], properties: { Name: { type: 'string' } }, additionalProperties: false },
  Product: {
    type: 'object',
    required: ['Id', 'Status'],
    properties: {
      Id: { type: 'string' },
      Status: { type: 'string', enum: ['active', 'retired'] },
      Category: { allOf: [ref('Category')] },
      Related: ref('Category'),
      Tags: { type: 'object', additionalProperties: { type: 'string' } },
      Rating: { type: 'integer', description: 'Stars.' },
      Value: { oneOf: [{ type: 'string' }, { type: 'integer' }] },
    },
    additionalProperties: false,
  },
})
const CATALOG_SEEDS = {
  'catalog:get': {
    request: [{ Id: 'p1' }],
    response: [
      { Id: 'p1', Status: 'active' },
      { Id: 'p2', Status: 'retired', Category: { Name: 'tools' }, Related: { Name: 'garden' }, Tags: { color: 'red' }, Rating: 4, Value: 'v' },
      { Id: 'p3', Status: 'active', Value: 3 },
    ],
  },
  'catalog:price': {
    request: [
      { Id: 'p1', Price: 0 },
      { Id: 'p1', Price: 2.5, Limit: 10, Secret: 'abcdefg1', Day: '2024-01-31' },
      { Id: 'p1', Price: 1, Secret: 'Abcdefg1', Day: 'abc' },
    ],
    response: [{ Id: 'p1' }],
  },
}
// ASP.NET Core's form of a reference it may make nullable: {type: object, allOf: [{$ref}]}
const CATALOG_TYPED_WRAPPER = edit(CATALOG, (c) => (S(c).Product.properties.Category = { type: 'object', allOf: [ref('Category')] }))
// a pattern led by an inline options group, as .NET writes one (warning BENZENE_PATTERN_DIALECT)
const CATALOG_CODE = edit(CATALOG, (c) => (S(c).PriceChange.properties.Day.pattern = '(?i)^[a-z0-9-]+$'))
const USERS_READ_ONLY_ID = edit(USERS, (c) => (S(c).User.properties.Id.readOnly = true))
const USERS_PASSWORD_REQUIRED = edit(USERS, (c) => {
  delete S(c).User.properties.Password.writeOnly
  S(c).User.required.push('Password')
})

/** Every key of every object, deeply, in reverse order (an equivalent document). */
const reverseKeys = (v: J): J =>
  Array.isArray(v)
    ? v.map(reverseKeys)
    : v && typeof v === 'object'
      ? Object.fromEntries(
          Object.entries(v)
            .reverse()
            .map(([k, x]) => [k, reverseKeys(x)]),
        )
      : v

type Key = `${'client' | 'service'} ${string}`
interface Pair {
  name: string
  old: J
  new: J
  seeds: J
  /** (audience, topic) pairs this edit plainly breaks; [] = breaks nobody. */
  breaks: Key[]
  /** An equivalent rewrite: no breaking finding at all. */
  equivalent?: boolean
  /** Extra strings for the sample domain (pattern edges). */
  strings?: string[]
  /** The docs say the diff cannot decide this change (diff-schemas.md, "What is unknown"): a warning is its due. */
  unknownOk?: boolean
}
const P = (name: string, base: J, seeds: J, f: (c: J) => unknown, breaks: Key[], more: Partial<Pair> = {}): Pair => ({
  name,
  old: base,
  new: edit(base, f),
  seeds,
  breaks,
  ...more,
})

const PAIRS: Pair[] = [
  // requests / responses / events of base A
  P('req-required-added', ORDERS, ORDERS_SEEDS, (c) => S(c).CreateOrder.required.push('Note'), ['client orders:create']),
  P('req-required-removed', ORDERS, ORDERS_SEEDS, (c) => (S(c).CreateOrder.required = ['Sku']), ['service orders:create']),
  P('resp-required-added', ORDERS, ORDERS_SEEDS, (c) => S(c).Order.required.push('Total'), ['service orders:create', 'service orders:get']),
  P('resp-required-removed', ORDERS, ORDERS_SEEDS, (c) => (S(c).Order.required = ['Id', 'Sku', 'Qty']), ['client orders:create', 'client orders:get']),
  P('req-type-widened', ORDERS, ORDERS_SEEDS, (c) => (S(c).CreateOrder.properties.Count.type = 'number'), ['service orders:create']),
  P('req-type-narrowed', ORDERS, ORDERS_SEEDS, (c) => (S(c).CreateOrder.properties.Weight.type = 'integer'), ['client orders:create']),
  P('resp-type-widened', ORDERS, ORDERS_SEEDS, (c) => (S(c).Order.properties.Qty.type = 'number'), ['client orders:create', 'client orders:get']),
  P('event-enum-value-added', ORDERS, ORDERS_SEEDS, (c) => S(c).OrderCreated.properties.Status.enum.push('cancelled'), ['client orders:created']),
  P('event-required-added', ORDERS, ORDERS_SEEDS, (c) => S(c).OrderCreated.required.push('At'), ['service orders:created']),
  P('req-enum-value-added', ORDERS, ORDERS_SEEDS, (c) => S(c).Currency.enum.push('GBP'), ['service orders:create']),
  P('req-enum-value-removed', ORDERS, ORDERS_SEEDS, (c) => (S(c).Currency.enum = ['EUR']), ['client orders:create']),
  P('resp-enum-value-removed', ORDERS, ORDERS_SEEDS, (c) => (S(c).Order.properties.Status.enum = ['open']), ['service orders:create', 'service orders:get']),
  P('req-minimum-increased', ORDERS, ORDERS_SEEDS, (c) => (S(c).CreateOrder.properties.Qty.minimum = 5), ['client orders:create']),
  P('req-max-length-increased', ORDERS, ORDERS_SEEDS, (c) => (S(c).CreateOrder.properties.Sku.maxLength = 64), ['service orders:create']),
  P('resp-max-items-decreased', ORDERS, ORDERS_SEEDS, (c) => (S(c).Order.properties.Lines.maxItems = 2), ['service orders:create', 'service orders:get']),
  P('req-additional-properties-closed', ORDERS, ORDERS_SEEDS, (c) => (S(c).GetOrder.additionalProperties = false), ['client orders:get']),
  P('resp-additional-properties-opened', ORDERS, ORDERS_SEEDS, (c) => delete S(c).Order.additionalProperties, ['client orders:create', 'client orders:get']),
  P('req-pattern-widened', ORDERS, ORDERS_SEEDS, (c) => (S(c).GetOrder.properties.Id.pattern = '^ord-[0-9a-f]+$'), ['service orders:get'], {
    strings: ['ord-1a', 'ord-a', 'ord-'],
  }),
  P(
    'resp-pattern-narrowed',
    ORDERS,
    ORDERS_SEEDS,
    (c) => (S(c).Order.properties.Id.pattern = '^ord-[0-9]{1,3}$'),
    ['service orders:create', 'service orders:get'],
    {
      strings: ['ord-1234', 'ord-123'],
    },
  ),
  P('req-nullable-added', ORDERS, ORDERS_SEEDS, (c) => (S(c).CreateOrder.properties.Sku.nullable = true), ['service orders:create']),
  P('resp-nullable-removed', ORDERS, ORDERS_SEEDS, (c) => delete S(c).Order.properties.Total.nullable, ['service orders:create', 'service orders:get']),
  P('req-format-int32-added', ORDERS, ORDERS_SEEDS, (c) => (S(c).CreateOrder.properties.Count.format = 'int32'), ['client orders:create']),
  // components nested two levels inside a payload
  P('nested-ref-request-max-length', SHIPPING, SHIPPING_SEEDS, (c) => (S(c).Address.properties.Zip.maxLength = 5), ['client shipping:create']),
  P('nested-ref-response-required', SHIPPING, SHIPPING_SEEDS, (c) => S(c).Depot.required.push('Code'), ['service shipping:create']),
  P('nested-ref-request-nullable-removed', SHIPPING, SHIPPING_SEEDS, (c) => delete S(c).Address.properties.Country.nullable, ['client shipping:create'], {
    strings: [],
  }),
  P('shared-component-enum-added', SHIPPING, SHIPPING_SEEDS, (c) => S(c).Money.properties.Currency.enum.push('GBP'), [
    'client shipping:create',
    'service shipping:create',
  ]),
  P('req-min-items-increased', SHIPPING, SHIPPING_SEEDS, (c) => (S(c).CreateShipment.properties.Parcels.minItems = 1), ['client shipping:create']),
  // readOnly / writeOnly
  P('read-only-required-member', USERS, USERS_SEEDS, (c) => (S(c).User.properties.Id.readOnly = true), ['service users:create']),
  P('read-only-member-made-required-request-only', USERS, USERS_SEEDS, (c) => S(c).UserPatch.required.push('Version'), []),
  P('write-only-member-made-required', USERS, USERS_SEEDS, (c) => S(c).User.required.push('Password'), ['client users:create']),
  // discriminators
  P(
    'one-of-branch-added-response',
    PETS,
    PETS_SEEDS,
    (c) => {
      S(c).Pet.oneOf.push(ref('Lion'))
      S(c).Pet.discriminator.mapping.lion = '#/components/schemas/Lion'
    },
    ['client pets:get', 'service pets:register'],
  ),
  P(
    'one-of-branch-removed',
    PETS,
    PETS_SEEDS,
    (c) => {
      S(c).Pet.oneOf = [ref('Cat')]
      delete S(c).Pet.discriminator.mapping.dog
    },
    ['client pets:register', 'service pets:get'],
  ),
  P('parent-child-required-added', ZOO, ZOO_SEEDS, (c) => (S(c).Cat.allOf[1].required = ['Lives']), ['client zoo:admit']),
  // one component, two topics in opposite directions
  P('cross-topic-max-length-decreased', CART, CART_SEEDS, (c) => (S(c).Item.properties.Name.maxLength = 10), ['client cart:add', 'service cart:list']),
  // topics
  P('request-topic-removed', ORDERS, ORDERS_SEEDS, (c) => c.requests.splice(1, 1), ['client orders:get']),
  P('event-topic-removed', ORDERS, ORDERS_SEEDS, (c) => (c.events = []), ['client orders:created']),
  P('request-version-changed', ORDERS, ORDERS_SEEDS, (c) => (c.requests[1].version = 'v2'), ['client orders:get']),
  P('request-topic-added', ORDERS, ORDERS_SEEDS, (c) => c.requests.push(rq('orders:cancel', ref('GetOrder'), ref('Order'))), []),
  P('event-topic-added', ORDERS, ORDERS_SEEDS, (c) => c.events.push(ev('orders:shipped', ref('OrderCreated'))), []),
  // near-changes that change nothing
  P('equiv-keys-reordered', ORDERS, ORDERS_SEEDS, (c) => reverseKeys(c), [], { equivalent: true }),
  P('equiv-enum-reordered', ORDERS, ORDERS_SEEDS, (c) => (S(c).Currency.enum = ['USD', 'EUR']), [], { equivalent: true }),
  P(
    'equiv-exclusive-minimum',
    ORDERS,
    ORDERS_SEEDS,
    (c) => (S(c).CreateOrder.properties.Qty = { type: 'integer', minimum: 0, exclusiveMinimum: true, maximum: 100 }),
    [],
    {
      equivalent: true,
    },
  ),
  P('equiv-description-added', ORDERS, ORDERS_SEEDS, (c) => (S(c).Order.properties.Sku.description = 'The stock keeping unit.'), [], { equivalent: true }),
  P('equiv-inline-for-ref', ORDERS, ORDERS_SEEDS, (c) => (S(c).CreateOrder.properties.Currency = { type: 'string', enum: ['EUR', 'USD'] }), [], {
    equivalent: true,
  }),
  P('equiv-pattern-rewritten', ORDERS, ORDERS_SEEDS, (c) => (S(c).GetOrder.properties.Id.pattern = '^ord-\\d+$'), [], {
    equivalent: true,
    strings: ['ord-\u0661'],
  }),
  P('equiv-max-length-implied-by-enum', ORDERS, ORDERS_SEEDS, (c) => (S(c).Currency.maxLength = 3), [], { equivalent: true }),
  // harder shapes
  P('equiv-nullable-beside-ref', CATALOG, CATALOG_SEEDS, (c) => (S(c).Product.properties.Related.nullable = true), [], { equivalent: true }),
  P('resp-nullable-on-typed-all-of-wrapper', CATALOG_TYPED_WRAPPER, CATALOG_SEEDS, (c) => (S(c).Product.properties.Category.nullable = true), [
    'client catalog:get',
  ]),
  P('resp-nullable-on-all-of-wrapper', CATALOG, CATALOG_SEEDS, (c) => (S(c).Product.properties.Category.nullable = true), ['client catalog:get']),
  P('req-exclusive-minimum-added', CATALOG, CATALOG_SEEDS, (c) => (S(c).PriceChange.properties.Price.exclusiveMinimum = true), ['client catalog:price']),
  P('req-int64-added', CATALOG, CATALOG_SEEDS, (c) => (S(c).PriceChange.properties.Limit.format = 'int64'), ['client catalog:price']),
  P('resp-map-values-retyped', CATALOG, CATALOG_SEEDS, (c) => (S(c).Product.properties.Tags.additionalProperties = { type: 'integer' }), [
    'client catalog:get',
    'service catalog:get',
  ]),
  P('resp-nullable-added-to-enum', CATALOG, CATALOG_SEEDS, (c) => (S(c).Product.properties.Status.nullable = true), ['client catalog:get']),
  P('resp-type-removed', CATALOG, CATALOG_SEEDS, (c) => delete S(c).Product.properties.Rating.type, ['client catalog:get']),
  P('resp-one-of-scalar-branch-added', CATALOG, CATALOG_SEEDS, (c) => S(c).Product.properties.Value.oneOf.push({ type: 'boolean' }), ['client catalog:get']),
  P('parent-child-added', ZOO, ZOO_SEEDS, (c) => (S(c).Lion = { allOf: [ref('Animal'), { type: 'object', properties: { Pride: { type: 'string' } } }] }), [
    'service zoo:admit',
  ]),
  { name: 'read-only-removed-from-required', old: USERS_READ_ONLY_ID, new: USERS, seeds: USERS_SEEDS, breaks: ['client users:create'] },
  {
    name: 'write-only-added-to-required',
    old: USERS_PASSWORD_REQUIRED,
    new: edit(USERS_PASSWORD_REQUIRED, (c) => (S(c).User.properties.Password.writeOnly = true)),
    seeds: USERS_SEEDS,
    breaks: ['client users:create', 'client users:update'],
  },
  P('equiv-write-only-on-request-only-schema', USERS, USERS_SEEDS, (c) => (S(c).UserPatch.properties.Name.writeOnly = true), [], { equivalent: true }),
  P('equiv-requests-reordered', CATALOG, CATALOG_SEEDS, (c) => c.requests.reverse(), [], { equivalent: true }),
  P('event-read-only-required-member', ORDERS, ORDERS_SEEDS, (c) => (S(c).OrderCreated.properties.OrderId.readOnly = true), ['client orders:created']),
  P('equiv-event-write-only-member', ORDERS, ORDERS_SEEDS, (c) => (S(c).OrderCreated.properties.OrderId.writeOnly = true), [], { equivalent: true }),
  P('equiv-response-only-read-only-member', ORDERS, ORDERS_SEEDS, (c) => (S(c).Order.properties.Sku.readOnly = true), [], { equivalent: true }),
  P('nested-read-only-required-member', SHIPPING, SHIPPING_SEEDS, (c) => (S(c).Address.properties.Zip.readOnly = true), ['service shipping:create']),
  P('deep-items-map-ref-max-length', SHIPPING, SHIPPING_SEEDS, (c) => (S(c).Label.properties.Text.maxLength = 5), ['client shipping:create']),
  P(
    'discriminator-mapping-retargeted',
    PETS,
    PETS_SEEDS,
    (c) => {
      S(c).Pet.oneOf = [ref('Cat'), ref('Lion')]
      S(c).Pet.discriminator.mapping.dog = '#/components/schemas/Lion'
    },
    ['client pets:register', 'service pets:register', 'client pets:get', 'service pets:get'],
  ),
  P('parent-child-removed', ZOO, ZOO_SEEDS, (c) => delete S(c).Dog, ['client zoo:admit']),
  P('mapping-replaces-implicit-name', PETS_IMPLICIT, PETS_SEEDS, (c) => (S(c).Pet.discriminator.mapping = { dog: '#/components/schemas/Dog' }), [
    'client pets:register',
    'service pets:register',
    'client pets:get',
    'service pets:get',
  ]),
  P(
    'equiv-explicit-mapping',
    PETS_IMPLICIT,
    PETS_SEEDS,
    (c) => (S(c).Pet.discriminator.mapping = { Cat: '#/components/schemas/Cat', Dog: '#/components/schemas/Dog' }),
    [],
    { equivalent: true },
  ),
  P('shared-component-read-only-member', SHIPPING, SHIPPING_SEEDS, (c) => (S(c).Money.properties.Amount.readOnly = true), ['service shipping:create']),
  P('nested-response-write-only-member', SHIPPING, SHIPPING_SEEDS, (c) => (S(c).Depot.properties.City.writeOnly = true), ['client shipping:create']),
  P(
    'req-lookahead-pattern-narrowed',
    CATALOG,
    CATALOG_SEEDS,
    (c) => (S(c).PriceChange.properties.Secret.pattern = '^(?=.*\\d)(?=.*[A-Z]).{8,}$'),
    ['client catalog:price'],
    {
      unknownOk: true,
    },
  ),
  P(
    'req-inline-options-pattern-narrowed',
    CATALOG_CODE,
    CATALOG_SEEDS,
    (c) => (S(c).PriceChange.properties.Day.pattern = '^[a-z0-9-]+$'),
    ['client catalog:price'],
    { strings: ['ABC'] },
  ),
  P('req-format-date-added', CATALOG, CATALOG_SEEDS, (c) => (S(c).PriceChange.properties.Day.format = 'date'), ['client catalog:price']),
  P('equiv-example-changed', ORDERS, ORDERS_SEEDS, (c) => (c.requests[0].example = { sku: 'value', qty: 1 }), [], { equivalent: true }),
]

// ---------------------------------------------------------------------------------------------
// The sample domain: each seed, and every one-edit neighbour of it (each leaf replaced, each member
// removed or added), with the strings and names the two documents mention.
// ---------------------------------------------------------------------------------------------
function vocabulary(docs: J[]) {
  const strings = new Set<string>()
  let hasDiscriminator = false
  const namesOf = (d: J) => {
    const names = new Set<string>()
    const walk = (v: J) => {
      if (Array.isArray(v)) v.forEach(walk)
      else if (v && typeof v === 'object')
        for (const [k, x] of Object.entries(v)) {
          if (k === 'properties' && x && typeof x === 'object') Object.keys(x).forEach((n) => names.add(n))
          if ((k === 'enum' || k === 'mapping') && x) (Array.isArray(x) ? x : Object.keys(x)).forEach((s: J) => typeof s === 'string' && strings.add(s))
          if (k === 'discriminator') hasDiscriminator = true
          walk(x)
        }
    }
    walk(d)
    return names
  }
  const [a, b] = docs.map(namesOf)
  // a discriminator selects by schema name too
  if (hasDiscriminator) for (const d of docs) Object.keys(d.components.schemas).forEach((n) => strings.add(n))
  // member names one version declares and the other does not (the rest come from the seeds), and 'Extra'
  const names = [...a!, ...b!].filter((n) => !(a!.has(n) && b!.has(n)))
  return { strings: [...strings], names: [...new Set([...names, 'Extra'])] }
}

function neighbours(seed: J, vocab: { strings: string[]; names: string[] }, hints: string[]): J[] {
  const out: J[] = [seed]
  const leafAlternatives = (v: J): J[] => {
    if (typeof v === 'string') return ['', 'a', v + 'a', v + '0', 'x'.repeat(11), 'y'.repeat(40), null, 7, ...vocab.strings, ...hints]
    if (typeof v === 'number') return [0, 1, -1, v + 1, v - 1, 1.5, 4, 5, 100, 101, 2147483648, 1e19, null, '1', true]
    if (typeof v === 'boolean') return [!v, null, 'true']
    return [null]
  }
  const rec = (v: J, put: (x: J) => void, depth: number) => {
    if (depth > 6) return
    if (Array.isArray(v)) {
      put([])
      put(null)
      if (v.length) {
        put([...v, v[0]])
        put([...v, v[0], v[0]])
        put(Array.from({ length: 6 }, () => v[0]))
        v.slice(0, 2).forEach((x, i) => rec(x, (y) => put(v.map((z, j) => (j === i ? y : z))), depth + 1))
      }
    } else if (v && typeof v === 'object') {
      put(null)
      put('obj')
      for (const k of Object.keys(v)) {
        const { [k]: _gone, ...rest } = v
        put(rest)
        rec(v[k], (y) => put({ ...v, [k]: y }), depth + 1)
      }
      for (const n of vocab.names) if (!(n in v)) for (const x of ['x', 1]) put({ ...v, [n]: x })
    } else for (const x of leafAlternatives(v)) put(x)
  }
  rec(seed, (x) => out.push(x), 0)
  return out
}

// ---------------------------------------------------------------------------------------------
// Generated modules, and what their validators say
// ---------------------------------------------------------------------------------------------
interface Mod {
  both: J // the module as generated by default: requests, responses and events validated
  file: string
  resp?: Promise<J> // ?validate=response, made only for a topic no seed request of which this version accepts
}
const compiler = new ContractCompiler()
const moduleCache = new Map<string, Promise<Mod>>()
/** The two modules of a document, generated once per distinct document text. */
function modulesOf(d: J, dir: string): Promise<Mod> {
  const t = text(d)
  if (!moduleCache.has(t)) {
    const file = join(dir, `doc${moduleCache.size}.spec.json`)
    writeFileSync(file, t)
    moduleCache.set(t, (async () => ({ both: await load(file, undefined, `${file}.both.mjs`), file }))())
  }
  return moduleCache.get(t)!
}
async function load(file: string, query: string | undefined, out: string): Promise<J> {
  const r = await compiler.compile(file, query ? { query } : {})
  const errors = r.diagnostics.filter((d: J) => d.severity === 'error')
  if (errors.length || !r.code) throw new Error(`${file}: ${JSON.stringify(errors)}`)
  writeFileSync(out, r.code)
  return nodeRequire(out)
}
const findTopic = (m: J, topic: string, version: string | undefined) => (Object.values(m.topics) as J[]).find((c) => c.topic === topic && c.version === version)
const findEvent = (m: J, topic: string) => (Object.values(m.events) as J[]).find((e) => e.topic === topic)
const entryVersion = (d: J, topic: string) => d.requests.find((r: J) => r.topic === topic)?.version

const okResult = (payload?: unknown) => ({ status: 'ok', isSuccessful: true, payload, errors: [] })
/** A sender that records what reached it and answers a success without a body. */
const capture = () => {
  const box = { arrived: false, value: undefined as unknown }
  return { box, sender: { send: async (_t: string, v: unknown) => ((box.arrived = true), (box.value = v), okResult(undefined)) } }
}

/**
 * How a client of this version asks for a response on `topic`: a seed request it accepts (a client
 * sends a valid request and validates the answer), or, when it accepts none, the same document
 * generated with `?validate=response` and a dummy request.
 */
const callMemo = new WeakMap<Mod, Map<string, Promise<{ client: J; request: J }>>>()
function responseCall(m: Mod, d: J, topic: string, seeds: J): Promise<{ client: J; request: J }> {
  if (!callMemo.has(m)) callMemo.set(m, new Map())
  const memo = callMemo.get(m)!
  if (!memo.has(topic))
    memo.set(
      topic,
      (async () => {
        for (const request of seeds[topic]?.request ?? [])
          if (await accepts(m, d, 'request', topic, request, seeds)) return { client: findTopic(m.both, topic, entryVersion(d, topic)), request }
        m.resp ??= load(m.file, 'validate=response', `${m.file}.resp.mjs`)
        return { client: findTopic(await m.resp, topic, entryVersion(d, topic)), request: {} }
      })(),
    )
  return memo.get(topic)!
}

/** Does the module's validator for `role` accept `payload`? (The module validates before sending / on arrival.) */
const acceptMemo = new WeakMap<Mod, Map<string, boolean>>()
async function accepts(m: Mod, d: J, role: 'request' | 'response' | 'event', topic: string, payload: J, seeds: J): Promise<boolean> {
  if (!acceptMemo.has(m)) acceptMemo.set(m, new Map())
  const memo = acceptMemo.get(m)!
  const id = `${role} ${topic} ${JSON.stringify(payload)}`
  if (!memo.has(id)) memo.set(id, await acceptsNow(m, d, role, topic, payload, seeds))
  return memo.get(id)!
}
const COUNTS = { validations: 0, httpExchanges: 0 }
async function acceptsNow(m: Mod, d: J, role: 'request' | 'response' | 'event', topic: string, payload: J, seeds: J): Promise<boolean> {
  COUNTS.validations++
  if (role === 'event') {
    const e = findEvent(m.both, topic)
    const { box, sender } = capture()
    await e.publish(sender, payload)
    return box.arrived
  }
  if (role === 'request') {
    const c = findTopic(m.both, topic, entryVersion(d, topic))
    const { box, sender } = capture()
    await c.send(sender, payload)
    return box.arrived
  }
  const { client, request } = await responseCall(m, d, topic, seeds)
  const r = await client.send({ send: async () => okResult(JSON.parse(JSON.stringify(payload))) }, request)
  return r.isSuccessful === true
}

// ---------------------------------------------------------------------------------------------
// HTTP: one node:http server on 127.0.0.1:0; each exchange registers its own route.
// ---------------------------------------------------------------------------------------------
let server: Server
let baseUrl = ''
const routes = new Map<string, (envelope: J) => Promise<{ status: number; envelope: J }>>()
let routeCounter = 0
const HTTP_OF: Record<string, number> = { ok: 200, accepted: 202, 'validation-error': 422, 'not-implemented': 501, 'unexpected-error': 500 }
const reply = (statusCode: string, body?: unknown) => ({
  status: HTTP_OF[statusCode] ?? 200,
  envelope: { statusCode, isSuccessful: ['ok', 'accepted'].includes(statusCode), headers: {}, ...(body === undefined ? {} : { body: JSON.stringify(body) }) },
})
const problem = (status: string, detail: string) => ({
  type: `https://probe.test/${status}`,
  title: status,
  detail,
  benzeneStatus: status,
  errors: [{ message: detail }],
})
function route(handler: (envelope: J) => Promise<{ status: number; envelope: J }>) {
  const path = `/probe/${++routeCounter}/invoke`
  routes.set(path, handler)
  return { path, done: () => routes.delete(path) }
}
const sender = (endpoint: string) => {
  COUNTS.httpExchanges++
  return createHttpSender({ baseUrl, endpoint, timeoutMs: 5000 })
}

type Outcome = 'ok' | 'break' | 'skip'
/** A request from client C to service S over HTTP: skip when C will not send it. */
async function httpRequest(C: Mod, cd: J, Sm: Mod, sd: J, topic: string, payload: J): Promise<Outcome> {
  const client = findTopic(C.both, topic, entryVersion(cd, topic))
  if (!client) return 'skip'
  let arrived = false
  const r = route(async (env) => {
    arrived = true
    const version = env.headers?.['benzene-version']
    const handler = findTopic(Sm.both, env.topic, version)
    if (!handler) return reply('not-implemented', problem('not-implemented', `No handler for ${env.topic}@${version}`))
    const { box, sender: cap } = capture()
    await handler.send(cap, JSON.parse(env.body))
    return box.arrived ? reply('accepted') : reply('validation-error', problem('validation-error', 'refused by the service'))
  })
  try {
    const res = await client.send(sender(r.path), payload)
    if (!arrived) return 'skip'
    return res.isSuccessful ? 'ok' : 'break'
  } finally {
    r.done()
  }
  void sd
}
/** A response the service S produces (skip when S would not produce it) sent to client C over HTTP. */
async function httpResponse(C: Mod, cd: J, Sm: Mod, sd: J, topic: string, payload: J, seeds: J): Promise<Outcome> {
  if (!findTopic(C.both, topic, entryVersion(cd, topic)) || !findTopic(Sm.both, topic, entryVersion(sd, topic))) return 'skip'
  const { client, request } = await responseCall(C, cd, topic, seeds)
  const r = route(async () => {
    // the service's own check: its module validates what it answers (as its clients of its version would)
    if (!(await accepts(Sm, sd, 'response', topic, payload, seeds)))
      return reply('unexpected-error', problem('unexpected-error', 'PROBE: the service would not produce this'))
    return reply('ok', payload)
  })
  try {
    const res = await client.send(sender(r.path), request)
    if (res.isSuccessful) return 'ok'
    if (JSON.stringify(res.payload ?? '').includes('PROBE: the service would not produce this')) return 'skip'
    if (res.status === 'unexpected-error' && res.errors.some((e: J) => String(e.code).startsWith('response:'))) return 'break'
    throw new Error(`unexpected answer ${JSON.stringify(res)}`)
  } finally {
    r.done()
  }
}
/** An event the service S publishes over HTTP to client C's receiver (skip when S would not publish it). */
async function httpEvent(C: Mod, Sm: Mod, topic: string, payload: J): Promise<Outcome> {
  const publisher = findEvent(Sm.both, topic)
  if (!findEvent(C.both, topic)) return 'skip'
  if (!publisher) return 'break' // the client waits for an event this service never publishes
  let arrived = false
  const r = route(async (env) => {
    arrived = true
    const receiver = findEvent(C.both, env.topic)
    const { box, sender: cap } = capture()
    await receiver.publish(cap, JSON.parse(env.body))
    return box.arrived ? reply('accepted') : reply('validation-error', problem('validation-error', 'refused by the client'))
  })
  try {
    const res = await publisher.publish(sender(r.path), payload)
    if (!arrived) return 'skip'
    return res.isSuccessful ? 'ok' : 'break'
  } finally {
    r.done()
  }
}

// ---------------------------------------------------------------------------------------------
// The diff, run once for every pair: the old versions are committed in a scratch git repository and
// the new ones written over them, then `contracts diff --against HEAD --json` (one process).
// One pair is also run as `contracts diff old new --json`, to hold the two forms to the same findings.
// ---------------------------------------------------------------------------------------------
const findingsByPair = new Map<string, J[]>()
const mods = new Map<string, { old: Mod; new: Mod }>()
const REPO = join(TMP, 'repo')

function run(args: string[], cwd: string) {
  const r = spawnSync(process.execPath, [CLI, ...args], { cwd, encoding: 'utf8', timeout: 60_000, maxBuffer: 64 * 1024 * 1024 })
  if (r.status !== 0 && r.status !== 1) throw new Error(`contracts ${args.join(' ')}: ${r.status} ${r.stderr}`)
  return JSON.parse(r.stdout)
}
const git = (...args: string[]) => {
  const r = spawnSync(
    'git',
    ['-c', 'user.name=probe', '-c', 'user.email=probe@127.0.0.1', '-c', 'core.hooksPath=/dev/null', '-c', 'commit.gpgsign=false', ...args],
    {
      cwd: REPO,
      encoding: 'utf8',
      timeout: 30_000,
    },
  )
  if (r.status !== 0) throw new Error(`git ${args.join(' ')}: ${r.stderr}`)
}
const text = (d: J) => JSON.stringify(d, null, 2) + '\n'

beforeAll(async () => {
  rmSync(TMP, { recursive: true, force: true })
  mkdirSync(REPO, { recursive: true })
  git('init', '-q')
  for (const p of PAIRS) writeFileSync(join(REPO, `${p.name}.spec.json`), text(p.old))
  git('add', '-A')
  git('commit', '-q', '-m', 'old')
  for (const p of PAIRS) writeFileSync(join(REPO, `${p.name}.spec.json`), text(p.new))
  const out = run(['diff', '--against', 'HEAD', '--json'], REPO)
  expect(out.diagnostics.filter((d: J) => d.severity === 'error')).toEqual([])
  expect(out.contracts.every((c: J) => c.valid)).toBe(true)
  for (const p of PAIRS) findingsByPair.set(p.name, [])
  for (const f of out.findings) {
    const name = String(f.new?.file ?? f.old?.file)
      .replace(/^.*\//, '')
      .replace(/\.spec\.json$/, '')
    findingsByPair.get(name)!.push(f)
  }
  // the modules: old and new, each as generated by default and with response validation alone
  const modDir = join(TMP, 'modules')
  mkdirSync(modDir, { recursive: true })
  for (const p of PAIRS) mods.set(p.name, { old: await modulesOf(p.old, modDir), new: await modulesOf(p.new, modDir) })
  server = createServer((req, res) => {
    const chunks: Buffer[] = []
    req.on('data', (c) => chunks.push(c))
    req.on('end', async () => {
      const handler = routes.get(new URL(req.url ?? '/', 'http://127.0.0.1').pathname)
      if (!handler || req.method !== 'POST') return res.writeHead(404).end()
      const { status, envelope } = await handler(JSON.parse(Buffer.concat(chunks).toString('utf8')))
      res.writeHead(status, { 'content-type': 'application/json' }).end(JSON.stringify(envelope))
    })
  })
  await new Promise<void>((ok) => server.listen(0, '127.0.0.1', ok))
  baseUrl = `http://127.0.0.1:${(server.address() as J).port}`
})
afterAll(async () => {
  if (process.env.PROBE_DEBUG) {
    console.log({ ...COUNTS, modules: moduleCache.size, cpu: process.cpuUsage() })
    const dump: J = {}
    for (const p of PAIRS) {
      const r = await realities.get(p.name)
      dump[p.name] = {
        findings: findingsByPair
          .get(p.name)!
          .map((f) => ({ rule: f.rule, level: f.level, audiences: f.audiences, pointer: f.new?.pointer ?? f.old?.pointer, data: f.data })),
        reality: r ? [...r.breaks.values()] : null,
      }
    }
    writeFileSync(join(TMP, 'debug.json'), JSON.stringify(dump, null, 1))
  }
  if (server) await new Promise((ok) => server.close(ok))
})

// ---------------------------------------------------------------------------------------------
// Reality: which (audience, topic) pairs break, shown over HTTP
// ---------------------------------------------------------------------------------------------
interface Evidence {
  key: Key
  role: string
  payload: J
}
// Per (audience, topic, role) cell, one sample goes over HTTP: one that breaks, if the in-process
// reading of the generated validators finds one, else one that does not (a control).
const HTTP_BREAKS_PER_CELL = 1
const HTTP_CONTROLS_PER_CELL = 1
async function reality(p: Pair): Promise<{ breaks: Map<Key, Evidence>; httpChecks: number }> {
  const m = mods.get(p.name)!
  const vocab = vocabulary([p.old, p.new])
  const breaks = new Map<Key, Evidence>()
  let httpChecks = 0
  const sides = [
    { kind: 'client' as const, C: m.old, cd: p.old, Sm: m.new, sd: p.new },
    { kind: 'service' as const, C: m.new, cd: p.new, Sm: m.old, sd: p.old },
  ]
  // one control (a sample that breaks nothing) per audience and role goes over HTTP too
  const controlSent = new Set<string>()
  for (const { kind, C, cd, Sm, sd } of sides) {
    // requests the client side has
    for (const entry of cd.requests) {
      const topic = entry.topic
      const key: Key = `${kind} ${topic}`
      const seeds = p.seeds[topic] ?? {}
      const serviceHas = findTopic(Sm.both, topic, entry.version)
      if (!serviceHas) {
        // a topic (or version) the other side lacks: the docs count it against the clients only
        if (kind === 'client') {
          for (const s of seeds.request ?? []) {
            const o = await httpRequest(C, cd, Sm, sd, topic, s)
            httpChecks++
            if (o === 'break') breaks.set(key, { key, role: 'request (no handler)', payload: s })
          }
        }
        continue
      }
      for (const role of ['request', 'response'] as const) {
        const [from, fromDoc, to, toDoc] = role === 'request' ? [C, cd, Sm, sd] : [Sm, sd, C, cd]
        const domain = (seeds[role] ?? []).flatMap((s: J) => neighbours(s, vocab, p.strings ?? []))
        const breaking: J[] = []
        const controls: J[] = []
        const seen = new Set<string>()
        for (const v of domain) {
          const id = JSON.stringify(v)
          if (seen.has(id)) continue
          seen.add(id)
          if (!(await accepts(from, fromDoc, role, topic, v, p.seeds))) continue
          if (await accepts(to, toDoc, role, topic, v, p.seeds)) {
            if (controls.length < HTTP_CONTROLS_PER_CELL) controls.push(v)
          } else if (breaking.length < HTTP_BREAKS_PER_CELL) breaking.push(v)
        }
        const send: [J, Outcome][] = breaking.length
          ? breaks.has(key)
            ? []
            : breaking.map((v) => [v, 'break'])
          : controlSent.has(`${kind} ${role}`)
            ? []
            : controls.map((v) => [v, 'ok'])
        if (!breaking.length && controls.length) controlSent.add(`${kind} ${role}`)
        for (const [v, expected] of send) {
          const o = role === 'request' ? await httpRequest(C, cd, Sm, sd, topic, v) : await httpResponse(C, cd, Sm, sd, topic, v, p.seeds)
          httpChecks++
          // the harness's in-process reading and the HTTP exchange must agree
          expect({ pair: p.name, kind, topic, role, payload: v, outcome: o }).toEqual({ pair: p.name, kind, topic, role, payload: v, outcome: expected })
          if (o === 'break' && !breaks.has(key)) breaks.set(key, { key, role, payload: v })
        }
      }
    }
    for (const entry of cd.events) {
      const topic = entry.topic
      const key: Key = `${kind} ${topic}`
      if (!findEvent(Sm.both, topic)) {
        if (kind === 'client') breaks.set(key, { key, role: 'event (never published)', payload: null })
        continue
      }
      const domain = (p.seeds[topic]?.event ?? []).flatMap((s: J) => neighbours(s, vocab, p.strings ?? []))
      const picked: [J, Outcome][] = []
      let nb = 0
      let nc = 0
      const seen = new Set<string>()
      for (const v of domain) {
        const id = JSON.stringify(v)
        if (seen.has(id)) continue
        seen.add(id)
        if (!(await accepts(Sm, sd, 'event', topic, v, p.seeds))) continue
        if (await accepts(C, cd, 'event', topic, v, p.seeds)) {
          if (nc++ < HTTP_CONTROLS_PER_CELL) picked.push([v, 'ok'])
        } else if (nb++ < HTTP_BREAKS_PER_CELL) picked.push([v, 'break'])
      }
      if (nb) picked.splice(0, picked.length, ...picked.filter(([, o]) => o === 'break'))
      if (!nb && controlSent.has(`${kind} event`)) picked.length = 0
      else if (!nb) controlSent.add(`${kind} event`)
      for (const [v, expected] of picked) {
        const o = await httpEvent(C, Sm, topic, v)
        httpChecks++
        expect({ pair: p.name, kind, topic, role: 'event', payload: v, outcome: o }).toEqual({
          pair: p.name,
          kind,
          topic,
          role: 'event',
          payload: v,
          outcome: expected,
        })
        if (o === 'break' && !breaks.has(key)) breaks.set(key, { key, role: 'event', payload: v })
      }
    }
  }
  return { breaks, httpChecks }
}

// ---------------------------------------------------------------------------------------------
// The diff's verdicts
// ---------------------------------------------------------------------------------------------
/** Findings about a message (the hash rule says which deployed clients report drift: not a broken call). */
const verdictFindings = (p: Pair) => findingsByPair.get(p.name)!.filter((f) => f.rule !== 'benzene-hash-changed')
function topicsOf(p: Pair) {
  return new Set<string>([...p.old.requests, ...p.new.requests, ...p.old.events, ...p.new.events].map((e: J) => e.topic))
}
/** (audience, topic) cells a finding names: a name is `topic` or `topic@version`; no name is the whole service. */
function cells(p: Pair, f: J): Key[] {
  return (f.audiences ?? []).flatMap((a: J) =>
    a.kind !== 'client' && a.kind !== 'service'
      ? []
      : a.name === undefined
        ? [...topicsOf(p)].map((t) => `${a.kind} ${t}` as Key)
        : [`${a.kind} ${String(a.name).replace(/@[^@]*$/, '')}` as Key],
  )
}
const cellsAt = (p: Pair, levels: string[]) =>
  new Set(
    verdictFindings(p)
      .filter((f) => levels.includes(f.level))
      .flatMap((f) => cells(p, f)),
  )

/** Does the witness of `f` show, over HTTP, the break it claims for the audience `a`? */
/** Every way of putting `value` in place of one member (or item) of `seed`, the seed itself included. */
function embeddings(seed: J, value: J): J[] {
  const out: J[] = []
  const rec = (v: J, put: (x: J) => void, depth: number) => {
    if (depth > 8) return
    if (typeof v === typeof value && Array.isArray(v) === Array.isArray(value)) put(value)
    if (Array.isArray(v)) {
      v.forEach((x, i) => rec(x, (y) => put(v.map((z, j) => (j === i ? y : z))), depth + 1))
      put([...v, value])
    } else if (v && typeof v === 'object') for (const k of Object.keys(v)) rec(v[k], (y) => put({ ...v, [k]: y }), depth + 1)
  }
  rec(seed, (x) => out.push(x), 0)
  return out
}

/**
 * Does the witness of `f` show, over HTTP, the break it claims for audience `a`? `shown`: the witness
 * itself, sent as the payload. `embedded`: when it is not, a seed payload with the witness in place
 * of one of its members that does show the break (so the witness is a fragment of a real break).
 */
async function witnessShows(p: Pair, f: J, a: J): Promise<{ shown: boolean; embedded?: J; tried: string[] }> {
  // A finding that breaks both ways carries a witness per direction (data.witnesses, each with the
  // payload it is in); the audience's break is shown by whichever of them shows it.
  const all: J[] = f.data.witnesses ?? [f.data.witness]
  let last: { shown: boolean; embedded?: J; tried: string[] } = { shown: false, tried: [] }
  for (const witness of all) {
    const result = await oneWitnessShows(p, witness, a)
    if (result.shown) return result
    if (!last.embedded) last = { ...result, tried: [...last.tried, ...result.tried] }
  }
  return last
}

async function oneWitnessShows(p: Pair, witness: J, a: J): Promise<{ shown: boolean; embedded?: J; tried: string[] }> {
  const m = mods.get(p.name)!
  const { value, acceptedBy } = witness
  const topic = String(a.name ?? '').replace(/@[^@]*$/, '')
  if (!topic) return { shown: false, tried: ['(the audience names no topic)'] }
  const isEvent = [...p.old.events, ...p.new.events].some((e: J) => e.topic === topic)
  const tried: string[] = []
  // client: OLD client, NEW service; service: NEW client, OLD service
  const [C, cd, Sm, sd] = a.kind === 'client' ? [m.old, p.old, m.new, p.new] : [m.new, p.new, m.old, p.old]
  // which way the witness must travel: the side that accepts it sends it, the other refuses it
  const sentByClient = (a.kind === 'client') === (acceptedBy === 'old')
  const role = isEvent ? 'event' : sentByClient ? 'request' : 'response'
  if (isEvent && sentByClient) return { shown: false, tried: ['(an event is never sent by a client)'] }
  const send = (v: J) =>
    role === 'event' ? httpEvent(C, Sm, topic, v) : role === 'request' ? httpRequest(C, cd, Sm, sd, topic, v) : httpResponse(C, cd, Sm, sd, topic, v, p.seeds)
  const o = await send(value)
  tried.push(`${role} (whole witness): ${o}`)
  if (o === 'break') return { shown: true, tried }
  const [from, fromDoc, to, toDoc] = role === 'request' ? [C, cd, Sm, sd] : [Sm, sd, C, cd]
  const seeds = p.seeds[topic]?.[role] ?? []
  for (const seed of seeds)
    for (const v of embeddings(seed, value))
      if ((await accepts(from, fromDoc, role, topic, v, p.seeds)) && !(await accepts(to, toDoc, role, topic, v, p.seeds))) {
        const e = await send(v)
        tried.push(`${role} (witness embedded in a seed): ${e}`)
        if (e === 'break') return { shown: false, embedded: v, tried }
      }
  return { shown: false, tried }
}

const realities = new Map<string, Promise<{ breaks: Map<Key, Evidence>; httpChecks: number }>>()
const realityOf = (p: Pair) => {
  if (!realities.has(p.name)) realities.set(p.name, reality(p))
  return realities.get(p.name)!
}

describe('contracts diff (Benzene) against generated modules over HTTP', () => {
  it('diff --against finds the same as diff old new (one pair, as `contracts diff old new --json`)', () => {
    for (const name of ['mapping-replaces-implicit-name']) {
      const p = PAIRS.find((x) => x.name === name)!
      const dir = join(TMP, 'direct', name)
      mkdirSync(dir, { recursive: true })
      writeFileSync(join(dir, 'old.spec.json'), text(p.old))
      writeFileSync(join(dir, 'new.spec.json'), text(p.new))
      const direct = run(['diff', join(dir, 'old.spec.json'), join(dir, 'new.spec.json'), '--json'], dir)
      const strip = (fs: J[]) =>
        fs.map((f) => ({ rule: f.rule, level: f.level, audiences: f.audiences, old: f.old?.pointer, new: f.new?.pointer, data: f.data }))
      expect(strip(direct.findings)).toEqual(strip(findingsByPair.get(name)!))
    }
  })

  for (const p of PAIRS) {
    describe(p.name, () => {
      it('harness: the edit breaks, over HTTP, exactly the (audience, topic) cells it was built to break', async () => {
        const { breaks } = await realityOf(p)
        expect([...breaks.keys()].sort()).toEqual([...p.breaks].sort())
      })

      it('(a) soundness: every cell that really breaks is flagged by the diff', async () => {
        const { breaks } = await realityOf(p)
        const flagged = cellsAt(p, ['breaking', 'warning'])
        const missed = [...breaks.values()].filter((e) => !flagged.has(e.key))
        expect(missed, JSON.stringify({ findings: verdictFindings(p) }, null, 1)).toEqual([])
      })

      let witnessMemo: Promise<J[]> | undefined
      const witnessChecks = () => (witnessMemo ??= witnessChecksNow())
      const witnessChecksNow = async () => {
        const out: J[] = []
        for (const f of verdictFindings(p)) {
          if (f.level !== 'breaking' || !f.data?.witness) continue
          for (const a of f.audiences)
            out.push({ finding: f, rule: f.rule, pointer: f.new?.pointer, audience: a, witness: f.data.witness, ...(await witnessShows(p, f, a)) })
        }
        return out
      }
      it('(b1) every witness shows a real break through the generated code, for an audience it names (whole, or as the member it stands for)', async () => {
        const byFinding = new Map<J, J[]>()
        for (const w of await witnessChecks()) byFinding.set(w.finding, [...(byFinding.get(w.finding) ?? []), w])
        const bad = [...byFinding.values()].filter((ws) => !ws.some((w) => w.shown || w.embedded)).map((ws) => ws.map(({ finding: _f, ...w }) => w))
        expect(bad).toEqual([])
      })
      it('(b2) every witness is a whole payload that shows the break for each audience the finding names', async () => {
        const fragments = (await witnessChecks()).filter((w) => !w.shown).map(({ finding: _f, ...w }) => w)
        expect(fragments).toEqual([])
      })
      it('(c) completeness: each plainly broken cell is called breaking, and no other cell is', () => {
        const breaking = [...cellsAt(p, ['breaking'])].sort()
        if (!p.unknownOk) return expect(breaking).toEqual([...p.breaks].sort())
        // a change the docs call undecidable: each broken cell at least flagged, nothing else called breaking
        const flagged = cellsAt(p, ['breaking', 'warning'])
        expect(p.breaks.filter((k) => !flagged.has(k))).toEqual([])
        expect(breaking.filter((k) => !p.breaks.includes(k as Key))).toEqual([])
      })

      if (p.equivalent)
        it('(d) an equivalent rewrite has no breaking or warning finding', () => {
          expect(verdictFindings(p).filter((f) => f.level !== 'info')).toEqual([])
        })
    })
  }
})
