import type { Result } from '../shared/result.js'

export type MessageHeaders = Readonly<Record<string, string>>

/**
 * The transport-agnostic message sender generated clients call (Benzene Contract Document §5.4): bind it to HTTP, a queue
 * or an in-process handler; the generated code never knows which.
 */
export interface MessageSender {
  send(topic: string, request: unknown, headers?: MessageHeaders): Promise<Result<unknown>>
}
