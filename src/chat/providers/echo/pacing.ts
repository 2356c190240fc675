import type { Usage } from '../../model'
import type { StreamReport } from '../provider'
import type { Step } from './answer'
import type { ChunkEmitter } from './chunks'

/** A planned answer: its steps, how to emit them, and the usage chunk that ends them if asked for. */
export type Planned<T> = { steps: Iterator<Step>; emit: ChunkEmitter<T>; usage: Usage | undefined }

/**
 * Hands over the planned steps, emitted, on a fixed schedule, one every `delayMs` from the start
 * (at once when 0), like an upstream that keeps generating while its client is busy, so a slow
 * reader does not stretch the pace. An abort rejects the pending step with the signal's reason.
 */
export class PacedSteps<T> implements AsyncIterableIterator<T> {
  #plan: (() => Planned<T>) | undefined
  #planned: Planned<T> | undefined
  readonly #delayMs: number
  readonly #signal: AbortSignal
  #due = performance.now()
  #timer: ReturnType<typeof setTimeout> | undefined
  /** The step due next and its promise's settlers, while a timer runs (fields, not an object per step). */
  #dueStep: IteratorResult<T> | undefined
  #resolve: ((result: IteratorResult<T>) => void) | undefined
  #reject: ((reason: unknown) => void) | undefined
  /** The executor of every step's promise: made once per stream, not once per step. */
  readonly #settle = (resolve: (result: IteratorResult<T>) => void, reject: (reason: unknown) => void): void => {
    this.#resolve = resolve
    this.#reject = reject
  }
  #finished = false

  readonly #report: StreamReport | undefined

  constructor(plan: () => Planned<T>, delayMs: number, signal: AbortSignal, report?: StreamReport) {
    this.#plan = plan
    this.#delayMs = delayMs
    this.#signal = signal
    this.#report = report
    // The instance is its own listener (handleEvent) and its timer's argument: no closures per stream.
    if (delayMs > 0) signal.addEventListener('abort', this, { once: true })
  }

  handleEvent(): void {
    const reject = this.#reject
    this.#finish()
    reject?.(this.#signal.reason)
  }

  static #wake<T>(paced: PacedSteps<T>): void {
    const resolve = paced.#resolve!
    const step = paced.#dueStep!
    paced.#dueStep = paced.#resolve = paced.#reject = paced.#timer = undefined
    resolve(step)
  }

  next(): Promise<IteratorResult<T>> {
    // Checked before `finished`: an abort between steps (a shutdown's 503) must reach the route
    // as that error, not as the end of the stream.
    if (this.#signal.aborted) {
      this.#finish()
      return Promise.reject(this.#signal.reason)
    }
    if (this.#finished) return Promise.resolve(FINISHED)
    let step: IteratorResult<T>
    try {
      step = this.#nextStep()
    } catch (error) {
      this.#finish()
      return Promise.reject(error)
    }
    if (step.done) {
      this.#finish()
      return Promise.resolve(FINISHED)
    }
    if (this.#report) this.#report.events++
    if (this.#delayMs <= 0) return Promise.resolve(step)
    this.#due += this.#delayMs
    const wait = this.#due - performance.now()
    if (wait <= 0) return Promise.resolve(step)
    this.#dueStep = step
    const waiting = new Promise(this.#settle)
    this.#timer = setTimeout(PacedSteps.#wake<T>, wait, this)
    return waiting
  }

  return(): Promise<IteratorResult<T>> {
    this.#finish()
    return Promise.resolve(FINISHED)
  }

  #nextStep(): IteratorResult<T> {
    if (this.#plan) {
      this.#planned = this.#plan()
      this.#plan = undefined
    }
    const planned = this.#planned!
    const step = planned.steps.next()
    if (!step.done) return { value: planned.emit.step(step.value), done: false }
    if (planned.usage === undefined) return FINISHED
    const usage = planned.usage
    planned.usage = undefined
    return { value: planned.emit.usage(usage), done: false }
  }

  [Symbol.asyncIterator](): this {
    return this
  }

  #finish(): void {
    if (this.#finished) return
    this.#finished = true
    clearTimeout(this.#timer)
    this.#dueStep = this.#resolve = this.#reject = undefined
    this.#plan = undefined
    this.#planned = undefined
    this.#signal.removeEventListener('abort', this)
  }
}

const FINISHED: IteratorReturnResult<undefined> = { done: true, value: undefined } as const

export async function* flatten<T>(batches: AsyncIterable<T[]>): AsyncGenerator<T> {
  for await (const batch of batches) yield* batch
}
