/**
 * An abort controller made only when its signal is asked for. A responder runs one execution per
 * request and almost none is ever aborted, while Node's `AbortController` (an `EventTarget`) was a
 * measured share of a request's cost; an abort before the signal exists is remembered and the
 * signal, once asked for, is already aborted.
 */
export class LazyAbort {
  private controller: AbortController | undefined
  private abortedEarly = false

  get signal(): AbortSignal {
    if (!this.controller) {
      this.controller = new AbortController()
      if (this.abortedEarly) this.controller.abort()
    }
    return this.controller.signal
  }

  get aborted(): boolean {
    return this.controller ? this.controller.signal.aborted : this.abortedEarly
  }

  abort(): void {
    if (this.controller) this.controller.abort()
    else this.abortedEarly = true
  }
}
