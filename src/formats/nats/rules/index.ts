import type { Diagnostic, Locatable } from '../../../core/diagnostics.js'
import { runRules } from '../../../core/rule-runner.js'
import { KeptReportsByFile } from '../../../core/kept-reports.js'
import type { CompileMemos } from '../../../core/memo.js'
import { NATS_LOAD_CODES } from '../codes.js'
import { NatsContext } from '../context.js'
import type { LoadedFile, NatsInput } from '../load.js'
import type { CodeOf } from '../../../core/rule.js'
import { adapterKind, adapterReferences, adapterVersion, contextFields, schemaPointers } from './adapters.js'
import { audienceRule, dispatchRule, offlineNeedsDurable } from './audience.js'
import { oneAuthority } from './authority.js'
import { bindingProof, bindingTypes, schemaCheckExternal } from './binding-types.js'
import { bindingCoverage, bindingOverlap, bindingSources, correlationNotOverwritten } from './bindings.js'
import { identityUnique, importsAgree } from './bundle.js'
import { cancelSchemas, cancellationRule } from './cancellation.js'
import { addressTokens, channelKnown, channelProfiled, channelsDisjoint, parameterTypesKnown, parametersAgree, reservedSubjects } from './channels.js'
import { completionRule, correlationRule, quorumRule } from './completion.js'
import { consumerWithinStream, workqueueConsumers } from './consumers.js'
import { contractOverlap } from './contract-overlap.js'
import { deliveryRule, durableResources, ownershipRule } from './delivery.js'
import { filterIntersects, filterSyntax, publisherIdentity } from './filters.js'
import { bindingNonEmpty, identityNonEmpty, serverVersion } from './identity.js'
import { generatedInputs, inputForms, interactionOperations, interactionShape } from './interactions.js'
import { linkSchemas } from './link-schemas.js'
import { linkDirection, linkResolves, linkSubjects } from './links.js'
import { artifactFormat, artifactPointer, authorityForm, consumerConfig, consumerStream, durableName, streamConfig, streamName } from './native.js'
import { consumerFilter, consumerKnown, streamCaptures } from './operation-streams.js'
import { operationDirection, operationForm, operationKnown, operationProfiled } from './operations.js'
import { patternDialect, patternInvalid, patternSupported } from './patterns.js'
import { payloadBounded } from './payload-cost.js'
import { schemaCycle } from './schema-cycle.js'
import { pipelineBindings } from './pipeline-bindings.js'
import { pipelineOutput, pipelineSchemas } from './pipeline-schemas.js'
import { pipelineAdapters, pipelineRecursion, pipelineSteps } from './pipelines.js'
import { profilePresent, profileShape, profileUnsupported, profileVersion } from './profile.js'
import { refKind, refResolves } from './references.js'
import { headerReplyAddress, requestReply, standardReply } from './replies.js'
import { schemaFormat } from './schema-formats.js'
import { headersObject } from './headers-object.js'
import { headersSendable } from './headers-sendable.js'
import { interactionHeaders } from './interaction-headers.js'
import { asyncapiSchema, asyncapiVersion, standardVersion } from './standard.js'
import { standardChannelKey, standardParameters } from './standard-channels.js'
import { streamMinimumDuration, streamSubjects, streamWindow } from './stream-limits.js'
import { streamOverlap } from './stream-overlap.js'
import { tokenTypeForm, tokenTypeNonEmpty } from './token-types.js'
import { workflowRule } from './workflows.js'
import type { NatsRule } from './rule.js'

/** The document rules, run when the document is AsyncAPI 3.1.0 with a profile object. */
export const gateRules = [asyncapiVersion, profilePresent, profileVersion] as const satisfies readonly NatsRule[]

/** The rules of the standard AsyncAPI part alone: run on a document without a profile too. */
export const standardRules = [asyncapiSchema, refResolves, refKind, standardParameters, standardChannelKey] as const satisfies readonly NatsRule[]

/** Every other rule (NATS profile v0.2, part 1). Each has one code; README lists them. */
export const natsRules = [
  asyncapiSchema,
  refResolves,
  refKind,
  standardParameters,
  standardChannelKey,
  patternSupported,
  patternInvalid,
  patternDialect,
  payloadBounded,
  schemaCycle,
  schemaFormat,
  headersObject,
  headersSendable,
  interactionHeaders,
  profileUnsupported,
  profileShape,
  identityNonEmpty,
  bindingNonEmpty,
  serverVersion,
  identityUnique,
  importsAgree,
  tokenTypeForm,
  tokenTypeNonEmpty,
  channelKnown,
  channelProfiled,
  addressTokens,
  reservedSubjects,
  parametersAgree,
  parameterTypesKnown,
  filterSyntax,
  filterIntersects,
  publisherIdentity,
  channelsDisjoint,
  operationKnown,
  operationProfiled,
  operationForm,
  operationDirection,
  streamCaptures,
  consumerKnown,
  consumerFilter,
  requestReply,
  standardReply,
  headerReplyAddress,
  authorityForm,
  artifactFormat,
  artifactPointer,
  streamConfig,
  consumerConfig,
  streamName,
  durableName,
  consumerStream,
  oneAuthority,
  streamWindow,
  streamMinimumDuration,
  streamSubjects,
  consumerWithinStream,
  workqueueConsumers,
  streamOverlap,
  linkResolves,
  linkDirection,
  linkSubjects,
  linkSchemas,
  contractOverlap,
  // Part 2: adapters, interactions, pipelines, workflows.
  adapterKind,
  adapterVersion,
  schemaPointers,
  adapterReferences,
  contextFields,
  interactionOperations,
  interactionShape,
  inputForms,
  generatedInputs,
  bindingSources,
  bindingOverlap,
  bindingCoverage,
  correlationNotOverwritten,
  bindingTypes,
  bindingProof,
  schemaCheckExternal,
  audienceRule,
  offlineNeedsDurable,
  dispatchRule,
  deliveryRule,
  ownershipRule,
  durableResources,
  correlationRule,
  completionRule,
  quorumRule,
  cancellationRule,
  cancelSchemas,
  pipelineSteps,
  pipelineRecursion,
  pipelineAdapters,
  pipelineBindings,
  pipelineOutput,
  pipelineSchemas,
  workflowRule,
] as const satisfies readonly NatsRule[]

/** The codes NATS's rules declare. */
export type NatsRuleCode = CodeOf<typeof gateRules> | CodeOf<typeof natsRules>

/** Codes found while reading the bundle (load.ts), documented with the rules. */
export const loadCodes = Object.keys(NATS_LOAD_CODES) as Array<keyof typeof NATS_LOAD_CODES>

/** A file of the bundle, as the runner positions a report in it. */
const located = (file: LoadedFile): Locatable => ({ file: file.file, locate: file.source.locate })

/**
 * Runs the rules over the document, in order (core/rule-runner.ts: each report gets its rule's code
 * and severity); the context, with the facts the rules derived, is what the model reads. Its
 * validator plan is among them: NATS_PAYLOAD_UNBOUNDED, one of `natsRules`, reads it, so a document
 * that reaches the model had it decided here.
 */
export function checkNats(input: NatsInput, memos?: CompileMemos): { checked: NatsContext; diagnostics: Diagnostic[] } {
  const ctx = new NatsContext(input)
  const main = located(ctx.main)
  // A report kept from the last check names that check's file object: the main document is
  // positioned in this check's text (its path is the same), not in the text the report was made in.
  const target = { main, locate: (file: LoadedFile) => (file.file === ctx.main.file ? main : located(file)) }
  const diagnostics = runRules(gateRules, ctx, target)
  // A recompile replays the reports of each rule that read the same parts as the file's last check.
  const kept = memos?.kept('nats:rule-reports', () => new KeptReportsByFile<LoadedFile>()).of(input.main.file)
  // A document that is not AsyncAPI 3.1.0 with profile 0.2.0-draft is not read further: the rest would only echo that.
  // One without a profile at all (most AsyncAPI documents) still has its standard part checked, so
  // the user learns everything in one run.
  // So does a 3.0.x document (a profiled one is refused for its version, NATS_ASYNCAPI_VERSION).
  if (diagnostics.length === 0) {
    kept?.begin()
    runRules(natsRules, ctx, target, diagnostics, kept)
    kept?.end()
  } else if (standardVersion(ctx.doc) !== undefined && diagnostics.every((d) => d.code === 'NATS_PROFILE_MISSING' || d.code === 'NATS_ASYNCAPI_VERSION'))
    runRules(standardRules, ctx, target, diagnostics)
  return { checked: ctx, diagnostics }
}
