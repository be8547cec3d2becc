/** What generated modules import, and what applications use to send through them. */
export * from './result.js'
export type { MessageHeaders, MessageSender } from './sender.js'
export { createTopicClient, createTopicMap, type TopicClient, type TopicValidators } from './client.js'
export { createEvent, type EventDescriptor } from './event.js'
export { createContract, type ContractInfo, type ContractProjection } from './contract.js'
export { ajvRuntime, check, type Validator } from './validation.js'
export { createLocalSender, type LocalHandler } from './local-sender.js'
export { MaterializeError, materialize, operationId, quorumThreshold, type Interaction } from './interactions.js'
