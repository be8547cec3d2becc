/**
 * Reading what the application's adapters answer, which may be anything: a getter or a Proxy's trap
 * that throws, a thenable whose `then` throws, a promise that never settles. An answer that cannot
 * be read is a refusal (`allowed` false), never an exception out of the executor.
 */

/** Whether an answer says `allowed: true`; false for anything else, an answer whose reading throws included. */
export function allowedIn(answer: unknown): boolean {
  try {
    return (answer as { readonly allowed?: unknown } | undefined)?.allowed === true
  } catch {
    return false
  }
}

/** Whether an answer is a thenable (its `then` read once); false when reading it throws. */
export function isThenable(answer: unknown): answer is PromiseLike<unknown> {
  try {
    return typeof (answer as { then?: unknown } | undefined)?.then === 'function'
  } catch {
    return false
  }
}

/**
 * A thenable answer read as `allowed`, settling to `undefined` (unsettled) at the first of `dueMs`
 * passing (the operation's next due time: a verifier that never settles must not hold the operation
 * past its deadline, since events apply in order behind it) or `abandoned` (the executor letting the
 * operation go). Unsettled is not a refusal: a result then is unverified, a peer at dispatch is
 * revoked, and nothing is applied once the operation is let go. The thenable is adopted by
 * `Promise.resolve`, so a `then` that throws is a refusal.
 */
export function allowedWithin(answer: PromiseLike<unknown>, dueMs: number | null, nowMs: number, abandoned: Promise<void>): Promise<boolean | undefined> {
  return verdictWithin(
    Promise.resolve(answer).then(allowedIn, () => false),
    dueMs,
    nowMs,
    abandoned,
  )
}

/** A verdict already read (`authorizedNow`'s promise), `undefined` at the first of `dueMs` passing or `abandoned`, as `allowedWithin`. */
export function verdictWithin(verdict: Promise<boolean>, dueMs: number | null, nowMs: number, abandoned: Promise<void>): Promise<boolean | undefined> {
  let timer: ReturnType<typeof setTimeout> | undefined
  const races: Array<Promise<boolean | undefined>> = [verdict, abandoned.then(() => undefined)]
  if (dueMs !== null) races.push(new Promise<undefined>((resolve) => (timer = setTimeout(() => resolve(undefined), Math.max(0, dueMs - nowMs)))))
  return Promise.race(races).finally(() => clearTimeout(timer))
}

/** What `unlessClosed` answers when the executor closes first. */
export const CLOSED: unique symbol = Symbol('closed')

/**
 * An adapter's answer, or CLOSED once `closing` resolves first: an adapter that never settles (an
 * audience, an admission's authorization, a manifest, an aggregation: none has a due time to bound
 * it) must not hold `invoke()` past `close()`. A thenable is adopted as `await` adopts it (a `then`
 * that throws rejects).
 */
export function unlessClosed<T>(answer: T | PromiseLike<T>, closing: Promise<void> | undefined): Promise<Awaited<T> | typeof CLOSED> {
  const adopted = Promise.resolve(answer) as Promise<Awaited<T>>
  return closing === undefined ? adopted : Promise.race([adopted, closing.then((): typeof CLOSED => CLOSED)])
}
