/** The NATS interaction rules: adapters, interactions and their bindings, audience, dispatch, delivery, correlation, completion and cancellation (helpers/nats-bundle-cases.ts). */
import { describe, expect, it } from 'vitest'
import { compile } from '../src/index.js'
import { ShopBundle } from './helpers/nats-bundle.js'
import { interactionCases, shopCase } from './helpers/nats-bundle-cases.js'
import { describeFixtureTable } from './helpers/rule-fixtures.js'

describeFixtureTable({ contract: shopCase, failing: interactionCases, match: 'among' })

describe('gather-only work has no request payload', () => {
  it('an interaction without requestOperation (dispatch none) gets no correlation-overwrite diagnostics for its empty bindings', async () => {
    const bundle = ShopBundle.copy('gather-only')
    const doc = bundle.read('payments/asyncapi/asyncapi.yaml')
    const start = doc.indexOf('      bindings:\n        subject:\n          operationId: { input: operationId }')
    const end = doc.indexOf('      audience:', start)
    bundle
      .write('payments/asyncapi/asyncapi.yaml', doc.slice(0, start) + '      bindings: { subject: {}, payload: {} }\n' + doc.slice(end))
      .edit('payments/asyncapi/asyncapi.yaml', '      requestOperation: requestRefundVote\n', '')
      .relock()
    const codes = (await compile(bundle.doc('payments'))).diagnostics.map((d) => d.code)
    expect(codes).not.toContain('NATS_BINDING_CORRELATION')
  })
})

describe('correlation agrees across every request and result message (NATS_CORRELATION)', () => {
  const ballot = "    messages: { ballot: { $ref: '#/components/messages/RefundBallot' } }"
  it('a second result message without the correlated field is refused; type arrays compare by value', async () => {
    const second = ShopBundle.copy('correlation-second-message')
      .edit(
        'payments/asyncapi/asyncapi.yaml',
        ballot,
        "    messages: { ballot: { $ref: '#/components/messages/RefundBallot' }, late: { payload: { type: object, properties: { approve: { type: boolean } } } } }",
      )
      .relock()
    const found = (await compile(second.doc('payments'))).diagnostics.map((d) => [d.code, d.pointer])
    expect(found).toContainEqual(['NATS_CORRELATION', '/x-nats-contract/interactions/approveRefund/correlation/operation'])
    const nullable = ShopBundle.copy('correlation-type-arrays')
      .edit(
        'payments/asyncapi/asyncapi.yaml',
        /( {8}required: \[operationId, branchId, attempt, fence, peerId, requestedBy, refund\]\n {8}properties:\n {10}operationId: )\{ type: string \}/,
        "$1{ type: [string, 'null'] }",
      )
      .edit(
        'payments/asyncapi/asyncapi.yaml',
        /( {6}required: \[operationId, branchId, attempt, fence, peerId, approve\]\n {6}properties:\n {8}operationId: )\{ type: string \}/,
        "$1{ type: [string, 'null'] }",
      )
      .relock()
    const codes = (await compile(nullable.doc('payments'))).diagnostics.map((d) => [d.code, d.pointer])
    expect(codes).not.toContainEqual(['NATS_CORRELATION', '/x-nats-contract/interactions/approveRefund/correlation/operation'])
  })
})

describe('dispatch and completion: what one-eligible and independent durable work need', () => {
  it('result-bearing one-eligible work counting distinct peers is refused', async () => {
    const bundle = ShopBundle.copy('one-eligible-peers').edit('shipping/asyncapi/asyncapi.yaml', 'unit: distinct-branches', 'unit: distinct-peers').relock()
    const found = (await compile(bundle.doc('shipping'))).diagnostics.map((d) => [d.code, d.pointer])
    expect(found).toContainEqual(['NATS_COMPLETION', '/x-nats-contract/interactions/assignCourier/completion/unit'])
  })

  it('independent durable delivery whose target parameter is not bound from the branch is refused', async () => {
    const independent = ShopBundle.copy('independent-addressed').edit(
      'shipping/asyncapi/asyncapi.yaml',
      'dispatch: { mode: one-eligible, branchKey: recipient, selector: courierSelector, targetParameter: courierId }',
      'dispatch: { mode: independent, branchKey: recipient, targetParameter: courierId }',
    )
    const addressed = (await compile(independent.relock().doc('shipping'))).diagnostics.map((d) => [d.code, d.pointer])
    expect(addressed).not.toContainEqual(['NATS_DURABLE_RESOURCES', '/x-nats-contract/interactions/assignCourier/dispatch/targetParameter'])
    independent.edit(
      'shipping/asyncapi/asyncapi.yaml',
      '          courierId: { branch: peerId }\n        payload:',
      '          courierId: { context: senderPeerId }\n        payload:',
    )
    const unaddressed = (await compile(independent.relock().doc('shipping'))).diagnostics.map((d) => [d.code, d.pointer])
    expect(unaddressed).toContainEqual(['NATS_DURABLE_RESOURCES', '/x-nats-contract/interactions/assignCourier/dispatch/targetParameter'])
  })
})

describe('cancellation wire data is the fixed CancelRequest/CancelResult (NATS_CANCEL_SCHEMA)', () => {
  const outcome = 'outcome: { type: string, enum: [stopped, already-completed, unknown] }'
  it('a cancel result with another outcome, or a cancel command without the fence, is refused; the shop passes', async () => {
    const outcomes = ShopBundle.copy('cancel-outcomes')
      .edit('payments/asyncapi/asyncapi.yaml', outcome, 'outcome: { type: string, enum: [stopped, failed] }')
      .relock()
    expect((await compile(outcomes.doc('payments'))).diagnostics.map((d) => [d.code, d.pointer])).toContainEqual([
      'NATS_CANCEL_SCHEMA',
      '/x-nats-contract/interactions/approveRefund/completion/cancelResultOperation',
    ])
    const fence = ShopBundle.copy('cancel-fence')
      .edit(
        'payments/asyncapi/asyncapi.yaml',
        'required: [operationId, branchId, attempt, fence]\n        properties: { operationId',
        'required: [operationId, branchId, attempt]\n        properties: { operationId',
      )
      .relock()
    expect((await compile(fence.doc('payments'))).diagnostics.map((d) => [d.code, d.pointer])).toContainEqual([
      'NATS_CANCEL_SCHEMA',
      '/x-nats-contract/interactions/approveRefund/completion/cancelOperation',
    ])
  })
})

describe('a binding from a branch input is not proven statically (NATS_BINDING_UNPROVEN)', () => {
  it('without runtime-schema-check it is refused, with it accepted', async () => {
    const edit = (b: ShopBundle) =>
      b.edit('payments/asyncapi/asyncapi.yaml', '          /requestedBy: { context: principalId }', '          /requestedBy: { branch: input }')
    const unproven = (await compile(edit(ShopBundle.copy('branch-input-unproven')).relock().doc('payments'))).diagnostics.map((d) => [d.code, d.pointer])
    expect(unproven).toContainEqual(['NATS_BINDING_UNPROVEN', '/x-nats-contract/interactions/approveRefund/bindings/payload/~1requestedBy'])
    const checked = edit(ShopBundle.copy('branch-input-checked')).withRuntimeSchemaCheck().relock()
    const found = (await compile(checked.doc('payments'))).diagnostics.map((d) => d.code)
    expect(found).not.toContain('NATS_BINDING_UNPROVEN')
  })
})

describe('a binding into a member the payload schema allows: its destination is what the schema says there (outside pass)', () => {
  // The request payload (RefundVoteRequest) is an open object: a member it does not declare takes any value.
  const bound =
    (source: string, property?: string, objectKeywords = '') =>
    (b: ShopBundle) => {
      b.edit(
        'payments/asyncapi/asyncapi.yaml',
        '          /requestedBy: { context: principalId }',
        `          /requestedBy: { context: principalId }\n          /note: ${source}`,
      )
      if (property !== undefined)
        b.edit(
          'payments/asyncapi/asyncapi.yaml',
          '          requestedBy: { type: string }\n',
          `          requestedBy: { type: string }\n          note: ${property}\n`,
        )
      if (objectKeywords !== '')
        b.edit(
          'payments/asyncapi/asyncapi.yaml',
          '        required: [operationId, branchId, attempt, fence, peerId, requestedBy, refund]\n',
          `        required: [operationId, branchId, attempt, fence, peerId, requestedBy, refund]\n        ${objectKeywords}\n`,
        )
      return b
    }
  const at = '/x-nats-contract/interactions/approveRefund/bindings/payload/~1note'
  it.each([
    // A boolean schema true is {}: anything is proven into it, as into {}.
    ['{ literal: hello }', 'true', '', []],
    ['{ literal: hello }', '{}', '', []],
    ['{ context: principalId }', 'true', '', []],
    // A member the open object does not declare takes any value.
    ['{ literal: hello }', undefined, '', []],
    ['{ literal: null }', undefined, '', []],
    ['{ literal: [1, 2] }', undefined, '', []],
    ['{ literal: { a: 1 } }', undefined, '', []],
    ['{ context: principalId }', undefined, '', []],
    // additionalProperties says what an undeclared member must be: a literal is validated against it, a source must fit it.
    ['{ literal: hello }', undefined, 'additionalProperties: { type: string }', []],
    ['{ context: principalId }', undefined, 'additionalProperties: { type: string }', []],
    ['{ literal: 5 }', undefined, 'additionalProperties: { type: string }', ['NATS_BINDING_TYPE']],
    ['{ context: nowMs }', undefined, 'additionalProperties: { type: string }', ['NATS_BINDING_TYPE', 'NATS_BINDING_UNPROVEN']],
    // A false schema, or additionalProperties false, holds no value: a contradiction, whatever the source.
    ['{ literal: hello }', 'false', '', ['NATS_BINDING_TYPE']],
    ['{ literal: hello }', undefined, 'additionalProperties: false', ['NATS_BINDING_TYPE']],
    // What the walk cannot read (patternProperties on the way) stays unproven.
    ['{ literal: hello }', undefined, "patternProperties: { '^n': { type: integer } }", ['NATS_BINDING_UNPROVEN']],
  ] as const)('%s into %s (%s)', async (source, property, keywords, codes) => {
    const name = `note-${source}-${property ?? 'undeclared'}-${keywords}`.replace(/\W+/g, '-')
    const found = (await compile(bound(source, property, keywords)(ShopBundle.copy(name)).relock().doc('payments'))).diagnostics
    expect(found.filter((d) => d.pointer === at).map((d) => d.code)).toEqual(codes)
    expect(found.filter((d) => d.pointer !== at && d.severity === 'error')).toEqual([])
  })
})

describe('context deadlineMs may be null (before admission): proven only into a destination that admits null', () => {
  const bound = (schema: string) => (b: ShopBundle) =>
    b
      .edit(
        'payments/asyncapi/asyncapi.yaml',
        '          /requestedBy: { context: principalId }',
        '          /requestedBy: { context: principalId }\n          /due: { context: deadlineMs }',
      )
      .edit(
        'payments/asyncapi/asyncapi.yaml',
        '          requestedBy: { type: string }\n',
        `          requestedBy: { type: string }\n          due: ${schema}\n`,
      )
  const at = '/x-nats-contract/interactions/approveRefund/bindings/payload/~1due'
  it.each([
    // An integer destination refuses the null materialize may be given: not proven (an outside pass saw it proven, then MATERIALIZE_INVALID_PAYLOAD).
    ['{ type: integer }', ['NATS_BINDING_UNPROVEN']],
    // `nullable` is no JSON Schema keyword; the validators refuse null there too.
    ['{ type: integer, nullable: true }', ['NATS_BINDING_UNPROVEN']],
    ["{ type: [integer, 'null'] }", []],
    ["{ type: [number, 'null'] }", []],
    ['{}', []],
    // A destination no value of the field fits is a contradiction.
    ['{ type: string }', ['NATS_BINDING_TYPE', 'NATS_BINDING_UNPROVEN']],
  ])('into %s', async (schema, codes) => {
    const found = (
      await compile(
        bound(schema)(ShopBundle.copy(`deadline-${schema.replace(/\W+/g, '-')}`))
          .relock()
          .doc('payments'),
      )
    ).diagnostics
    expect(found.filter((d) => d.pointer === at).map((d) => d.code)).toEqual(codes)
  })
  it('nowMs (never null) into an integer destination is proven', async () => {
    const nowMs = (b: ShopBundle) =>
      bound('{ type: integer }')(b).edit('payments/asyncapi/asyncapi.yaml', '/due: { context: deadlineMs }', '/due: { context: nowMs }')
    const found = (await compile(nowMs(ShopBundle.copy('deadline-nowms')).relock().doc('payments'))).diagnostics
    expect(found.filter((d) => d.pointer === at)).toEqual([])
  })
})

describe('branch manifests are typed arrays of {branchId, peerId, input} (NATS_DISPATCH)', () => {
  const dispatch = 'dispatch: { mode: independent, branchKey: recipient, targetParameter: peerId }'
  const manifestAt = ['NATS_DISPATCH', '/x-nats-contract/interactions/approveRefund/dispatch/branchesInput']
  it('a manifest input that is not such an array is refused; a typed manifest passes; a branch input needs a manifest', async () => {
    const object = ShopBundle.copy('manifest-object').edit(
      'payments/asyncapi/asyncapi.yaml',
      dispatch,
      'dispatch: { mode: branches, branchKey: declared, branchesInput: refund, targetParameter: peerId }',
    )
    expect((await compile(object.relock().doc('payments'))).diagnostics.map((d) => [d.code, d.pointer])).toContainEqual(manifestAt)
    const typed = ShopBundle.copy('manifest-typed').withBranchManifest({
      Manifest:
        '{ type: array, items: { type: object, required: [branchId, peerId, input], properties: { branchId: { type: string }, peerId: { type: string }, input: {} } } }',
    })
    expect((await compile(typed.relock().doc('payments'))).diagnostics.map((d) => [d.code, d.pointer])).not.toContainEqual(manifestAt)
    const noManifest = ShopBundle.copy('branch-input-no-manifest').edit(
      'payments/asyncapi/asyncapi.yaml',
      '          /requestedBy: { context: principalId }',
      '          /requestedBy: { branch: input }',
    )
    expect((await compile(noManifest.relock().doc('payments'))).diagnostics.map((d) => [d.code, d.pointer])).toContainEqual([
      'NATS_DISPATCH',
      '/x-nats-contract/interactions/approveRefund/bindings/payload/~1requestedBy',
    ])
  })
})

describe('partial construction through a composed schema is not proven (NATS_BINDING_MISSING)', () => {
  const composed = (b: ShopBundle) =>
    b.edit(
      'payments/asyncapi/asyncapi.yaml',
      "          refund: { $ref: '#/components/schemas/RefundRequest' }",
      "          refund: { allOf: [{ $ref: '#/components/schemas/RefundRequest' }] }",
    )
  it('an object bound field by field through allOf is refused; bound whole it passes', async () => {
    const partial = composed(ShopBundle.copy('composed-partial')).edit(
      'payments/asyncapi/asyncapi.yaml',
      '          /refund: { input: refund }',
      '          /refund/paymentId: { literal: pay-1 }\n          /refund/amount: { literal: 10 }',
    )
    const found = (await compile(partial.relock().doc('payments'))).diagnostics.map((d) => [d.code, d.message])
    expect(found.some(([code, message]) => code === 'NATS_BINDING_MISSING' && String(message).includes('/refund is built field by field'))).toBe(true)
    const whole = (await compile(composed(ShopBundle.copy('composed-whole')).relock().doc('payments'))).diagnostics.map((d) => [d.code, d.message])
    expect(whole.some(([code, message]) => code === 'NATS_BINDING_MISSING' && String(message).includes('field by field'))).toBe(false)
  })
})

describe('correlation locations a request leaves unbound (NATS_BINDING_CORRELATION)', () => {
  const unbound = async (name: string, line: string) => {
    const bundle = ShopBundle.copy(`correlation-unbound-${name}`).edit('payments/asyncapi/asyncapi.yaml', line, '').relock()
    return (await compile(bundle.doc('payments'))).diagnostics.map((d) => [d.code, d.pointer])
  }
  it('the peer’s id may be left out of the request (the peer writes it into its result; the layout binds none): only a required field is missing', async () => {
    const found = await unbound('peer', '          /peerId: { branch: peerId }\n')
    expect(found.map(([code]) => code)).not.toContain('NATS_BINDING_CORRELATION')
    // The shop's request schema requires peerId: that is the binding rule's, not correlation's.
    expect(found).toContainEqual(['NATS_BINDING_MISSING', '/x-nats-contract/interactions/approveRefund/bindings/payload'])
  })
  it('the operation id may not: a result echoes it from the request it answers', async () => {
    const found = await unbound('operation', '          /operationId: { input: operationId }\n')
    expect(found).toContainEqual(['NATS_BINDING_CORRELATION', '/x-nats-contract/interactions/approveRefund/bindings/payload'])
  })
})
