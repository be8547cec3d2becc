/** What generated modules import, and what applications use to send through them. */
export * from './result.js'
export type { MessageHeaders, MessageSender } from './sender.js'
export { createTopicClient, createTopicMap, type TopicClient } from './client.js'
export { createLocalSender, type LocalHandler } from './local-sender.js'
