/** The iterator of the entry that answered, with its first item. */
export type OpenedStream<T> = { iterator: AsyncIterator<T>; first: IteratorResult<T> }

const FINISHED: IteratorReturnResult<undefined> = { done: true, value: undefined }

/**
 * What {@link ModelRegistry.streamEvents} returns. Until the first item it opens, retries and
 * falls back; from then on `next()` is the chosen provider's own, so no generator layer sits
 * between the provider and the route for the rest of the stream. `return()` reaches the provider
 * (which releases its upstream) whether the stream is under way or still opening.
 */
export class FallbackStream<T> implements AsyncIterableIterator<T> {
  /** Dropped once the stream is open, so a long stream does not keep what only opening needed. */
  #open: (() => Promise<OpenedStream<T>>) | undefined
  #source: AsyncIterator<T> | undefined
  #stopped = false

  constructor(open: () => Promise<OpenedStream<T>>) {
    this.#open = open
  }

  next(): Promise<IteratorResult<T>> {
    if (this.#source) return this.#source.next()
    if (this.#stopped) return Promise.resolve(FINISHED)
    return this.#first()
  }

  async return(): Promise<IteratorResult<T>> {
    this.#stopped = true
    await this.#source?.return?.()
    return FINISHED
  }

  [Symbol.asyncIterator](): this {
    return this
  }

  async #first(): Promise<IteratorResult<T>> {
    const open = this.#open!
    this.#open = undefined
    const { iterator, first } = await open()
    if (this.#stopped || first.done) {
      this.#stopped = true
      await iterator.return?.()
      return FINISHED
    }
    this.#source = iterator
    return first
  }
}
