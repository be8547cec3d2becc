/** The NATS pipeline and workflow rules (helpers/nats-bundle-cases.ts). */
import { describe, expect, it } from 'vitest'
import { compile } from '../src/index.js'
import { ShopBundle } from './helpers/nats-bundle.js'
import { pipelineCases, shopCase } from './helpers/nats-bundle-cases.js'
import { describeFixtureTable } from './helpers/rule-fixtures.js'

describeFixtureTable({ contract: shopCase, failing: pipelineCases, match: 'among' })

describe('pipeline operation steps: literals satisfy their destination, targets are the channel parameters (NATS_PIPELINE_BINDING)', () => {
  const approved = '              /approved: { stageInput: /approved }'
  const at = (tail: string) => `/x-nats-contract/pipelines/announceRefund/steps/1/bindings/${tail}`
  const variant = async (name: string, from: string, to: string) =>
    (await compile(ShopBundle.copy(name).edit('payments/asyncapi/asyncapi.yaml', from, to).relock().doc('payments'))).diagnostics.map((d) => [
      d.code,
      d.pointer,
    ])

  it('a string literal for a boolean field, a non-token literal for a subject parameter and an unknown parameter are refused', async () => {
    expect(await variant('pipeline-literal-type', approved, "              /approved: { literal: 'yes' }")).toContainEqual([
      'NATS_PIPELINE_BINDING',
      at('payload/~1approved'),
    ])
    expect(
      await variant('pipeline-literal-token', 'subject: { operationId: { stageInput: /operationId } }', "subject: { operationId: { literal: 'not.a token' } }"),
    ).toContainEqual(['NATS_PIPELINE_BINDING', at('subject/operationId')])
    expect(
      await variant(
        'pipeline-unknown-param',
        'subject: { operationId: { stageInput: /operationId } }',
        'subject: { operationId: { stageInput: /operationId }, region: { literal: eu } }',
      ),
    ).toContainEqual(['NATS_PIPELINE_BINDING', at('subject/region')])
  })

  it('a literal into a member the payload does not declare is judged by what the object says of such members (additionalProperties)', async () => {
    const outcome = (name: string, literal: string) =>
      ShopBundle.copy(name)
        .edit(
          'payments/asyncapi/asyncapi.yaml',
          '      properties: { operationId: { type: string }, approved: { type: boolean } }\n',
          '      properties: { operationId: { type: string }, approved: { type: boolean } }\n      additionalProperties: { type: integer }\n',
        )
        .edit('payments/asyncapi/asyncapi.yaml', approved, `${approved}\n              /note: { literal: ${literal} }`)
        .relock()
    const found = async (name: string, literal: string) =>
      (await compile(outcome(name, literal).doc('payments'))).diagnostics.filter((d) => d.pointer === at('payload/~1note')).map((d) => d.code)
    expect(await found('pipeline-undeclared-refused', 'x')).toEqual(['NATS_PIPELINE_BINDING'])
    expect(await found('pipeline-undeclared-accepted', '3')).toEqual([])
  })

  it('a literal the destination accepts passes', async () => {
    const found = await variant('pipeline-literal-ok', approved, '              /approved: { literal: true }')
    expect(found.filter(([code]) => code === 'NATS_PIPELINE_BINDING')).toEqual([])
  })
})

describe("a pipeline's first step reads the invocation input (the operation's payload, or the interaction's arguments)", () => {
  const pipeline = (field: string) =>
    `  pipelines:\n    direct:\n      onFailure: stop\n      steps:\n        - operation: publishRefundOutcome\n          bindings:\n            subject: { operationId: { stageInput: /operationId } }\n            payload:\n              /operationId: { stageInput: /operationId }\n              /approved: { stageInput: ${field} }\n`
  const compileWith = async (name: string, field: string) =>
    (await compile(ShopBundle.copy(name).edit('payments/asyncapi/asyncapi.yaml', '  pipelines:\n', pipeline(field)).relock().doc('payments'))).diagnostics.map(
      (d) => [d.code, d.pointer],
    )

  it('a first operation step reading a field its payload lacks is refused; one it has passes', async () => {
    expect(await compileWith('pipeline-first-missing', '/nope')).toContainEqual([
      'NATS_PIPELINE_BINDING',
      '/x-nats-contract/pipelines/direct/steps/0/bindings/payload/~1approved',
    ])
    const ok = await compileWith('pipeline-first-ok', '/approved')
    expect(ok.filter(([code]) => String(code).includes('PIPELINE'))).toEqual([])
  })
})

describe('steps after an undefined output (PIPELINE_OUTPUT_UNSUPPORTED)', () => {
  const literalStep = () =>
    '        - operation: publishRefundOutcome\n          bindings:\n            subject: { operationId: { literal: op0000000000000000000000000000000000000000000000000000000000000000 } }\n            payload:\n              /operationId: { context: operationId }\n              /approved: { literal: false }\n'
  const steps = (second: string) =>
    `  pipelines:\n    chained:\n      onFailure: stop\n      steps:\n        - operation: publishRefundOutcome\n          bindings:\n            subject: { operationId: { stageInput: /operationId } }\n            payload:\n              /operationId: { stageInput: /operationId }\n              /approved: { stageInput: /approved }\n${second}`
  const compileWith = async (name: string, second: string) =>
    (await compile(ShopBundle.copy(name).edit('payments/asyncapi/asyncapi.yaml', '  pipelines:\n', steps(second)).relock().doc('payments'))).diagnostics.map(
      (d) => [d.code, d.pointer],
    )

  it('an interaction with arguments after a publication is refused; a publication from context and literals only proceeds', async () => {
    expect(
      await compileWith('after-publication-interaction', '        - interaction: approveRefund\n          bindings: { subject: {}, payload: {} }\n'),
    ).toContainEqual(['PIPELINE_OUTPUT_UNSUPPORTED', '/x-nats-contract/pipelines/chained/steps/1'])
    const literal =
      '        - operation: publishRefundOutcome\n          bindings:\n            subject: { operationId: { literal: op0000000000000000000000000000000000000000000000000000000000000000 } }\n            payload:\n              /operationId: { context: operationId }\n              /approved: { literal: false }\n'
    const found = await compileWith('after-publication-literal', literal)
    expect(found.filter(([code]) => code === 'PIPELINE_OUTPUT_UNSUPPORTED')).toEqual([])
  })

  it('a transform after a publication is refused', async () => {
    const transform =
      "    reshape: { kind: transform, version: 1.0.0, inputSchema: '#/components/schemas/RefundOutcome', outputSchema: '#/components/schemas/RefundOutcome', description: Reshapes an outcome. }\n"
    const second = literalStep().replace(
      '        - operation: publishRefundOutcome\n',
      '        - operation: publishRefundOutcome\n          inputAdapter: reshape\n',
    )
    const bundle = ShopBundle.copy('after-publication-transform')
      .edit('payments/asyncapi/asyncapi.yaml', '  pipelines:\n', steps(second))
      .edit('payments/asyncapi/asyncapi.yaml', '    tally: {', `${transform}    tally: {`)
      .relock()
    expect((await compile(bundle.doc('payments'))).diagnostics.map((d) => [d.code, d.pointer])).toContainEqual([
      'PIPELINE_OUTPUT_UNSUPPORTED',
      '/x-nats-contract/pipelines/chained/steps/1/inputAdapter',
    ])
  })
})

describe('interaction steps take exactly their argument object (NATS_PIPELINE_SCHEMA)', () => {
  it("a later interaction step whose stage input is the previous step's aggregation output, not its arguments, is refused", async () => {
    const bundle = ShopBundle.copy('pipeline-interaction-input').edit(
      'payments/asyncapi/asyncapi.yaml',
      '        - interaction: approveRefund\n          bindings: { subject: {}, payload: {} }\n',
      '        - interaction: approveRefund\n          bindings: { subject: {}, payload: {} }\n        - interaction: approveRefund\n          bindings: { subject: {}, payload: {} }\n',
    )
    const found = (await compile(bundle.relock().doc('payments'))).diagnostics.map((d) => [d.code, d.pointer])
    expect(found).toContainEqual(['NATS_PIPELINE_SCHEMA', '/x-nats-contract/pipelines/announceRefund/steps/1'])
  })
})
