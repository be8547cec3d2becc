import { NATS_LOAD_CODES } from '../codes.js'
import {
  addressTokens,
  channelKnown,
  channelProfiled,
  channelsDisjoint,
  filterIntersects,
  filterSyntax,
  parametersAgree,
  parameterTypesKnown,
  publisherIdentity,
  reservedSubjects,
} from './channels.js'
import { identityUnique, importsAgree } from './bundle.js'
import { bindingNonEmpty, identityNonEmpty, serverVersion } from './identity.js'
import { contractOverlap, linkDirection, linkResolves, linkSchemas, linkSubjects } from './links.js'
import {
  artifactFormat,
  artifactPointer,
  authorityForm,
  consumerConfig,
  consumerStream,
  consumerWithinStream,
  durableName,
  oneAuthority,
  streamConfig,
  streamName,
  streamMinimumDuration,
  streamOverlap,
  streamSubjects,
  streamWindow,
  workqueueConsumers,
} from './native.js'
import {
  consumerFilter,
  consumerKnown,
  headerCorrelation,
  operationDirection,
  operationForm,
  operationKnown,
  operationProfiled,
  requestReply,
  standardReply,
  streamCaptures,
} from './operations.js'
import { adapterKind, adapterReferences, adapterVersion, contextFields, schemaPointers } from './adapters.js'
import { bindingCoverage, bindingOverlap, bindingProof, bindingSources, schemaCheckExternal, bindingTypes, correlationNotOverwritten } from './bindings.js'
import {
  audienceRule,
  cancellationRule,
  cancelSchemas,
  completionRule,
  correlationRule,
  deliveryRule,
  dispatchRule,
  durableResources,
  generatedInputs,
  inputForms,
  interactionOperations,
  interactionShape,
  offlineNeedsDurable,
  ownershipRule,
  quorumRule,
} from './interactions.js'
import { pipelineAdapters, pipelineBindings, pipelineOutput, pipelineRecursion, pipelineSchemas, pipelineSteps, workflowRule } from './pipelines.js'
import { patternSupported } from './patterns.js'
import { payloadBounded } from './payload-cost.js'
import { refKind, refResolves } from './references.js'
import { schemaFormat } from './schema-formats.js'
import type { NatsRule } from './rule.js'
import { asyncapiSchema, asyncapiVersion, profilePresent, profileShape, profileUnsupported, profileVersion } from './standard.js'
import { tokenTypeForm, tokenTypeNonEmpty } from './token-types.js'
import { standardChannelKey, standardParameters } from './standard-channels.js'

/** The document rules, run when the document is AsyncAPI 3.1.0 with a profile object. */
export const gateRules: readonly NatsRule[] = [asyncapiVersion, profilePresent, profileVersion]

/** The rules of the standard AsyncAPI part alone: run on a document without a profile too. */
export const standardRules: readonly NatsRule[] = [asyncapiSchema, refResolves, refKind, standardParameters, standardChannelKey]

/** Every other rule (NATS profile v0.2, part 1). Each has one code; README lists them. */
export const natsRules: readonly NatsRule[] = [
  asyncapiSchema,
  refResolves,
  refKind,
  standardParameters,
  standardChannelKey,
  patternSupported,
  payloadBounded,
  schemaFormat,
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
  headerCorrelation,
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
]

/** Codes found while reading the bundle (load.ts), documented with the rules. */
export const loadCodes = Object.keys(NATS_LOAD_CODES) as Array<keyof typeof NATS_LOAD_CODES>
