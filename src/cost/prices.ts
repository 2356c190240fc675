import type { PriceEntry } from '../config/prices'

/**
 * Prices and what a request costs, in integers. Authors write US dollars per million tokens (`2.50`); Trellis keeps
 * them as integer micro-dollars per million tokens (2,500,000), so that a row's cost is one integer division of an
 * exact sum, rounded once (half up) for the whole row rather than per kind of token, and no float ever reaches the
 * ledger (a float price times a token count drifts: 0.1 + 0.2).
 */

// The author's shape is configuration's (src/config/prices.ts), which may import no access room.
export { MAX_PRICE_USD, PriceEntry } from '../config/prices'

/** Integer micro-dollars per million tokens, by kind of token. */
export type Rates = { input: number; cachedInput: number; cacheWrite: number; output: number; reasoning: number }

const micros = (dollars: number) => Math.round(dollars * 1_000_000)

/** An entry's rates, with its defaults filled in. */
export function ratesOf(entry: PriceEntry): Rates {
  const input = micros(entry.input)
  const output = micros(entry.output)
  return {
    input,
    cachedInput: entry.cached_input === undefined ? input : micros(entry.cached_input),
    cacheWrite: entry.cache_write === undefined ? input : micros(entry.cache_write),
    output,
    reasoning: entry.reasoning === undefined ? output : micros(entry.reasoning),
  }
}

/**
 * A request's tokens as the ledger counts them, in OpenAI's convention: `prompt` is the whole prompt, cache reads
 * (`cached`) and cache writes (`cacheWrite`) included; `completion` includes `reasoning`.
 */
export type Counts = { prompt: number; completion: number; cached: number; cacheWrite: number; reasoning: number }

const PER_MILLION = 1_000_000n

/** What `counts` cost at `rates`, in integer micro-dollars, rounded half up once for the whole request. */
export function costMicros(rates: Rates, counts: Counts): number {
  const cached = Math.min(counts.cached, counts.prompt)
  const cacheWrite = Math.min(counts.cacheWrite, counts.prompt - cached)
  const reasoning = Math.min(counts.reasoning, counts.completion)
  const sum =
    BigInt(counts.prompt - cached - cacheWrite) * BigInt(rates.input) +
    BigInt(cached) * BigInt(rates.cachedInput) +
    BigInt(cacheWrite) * BigInt(rates.cacheWrite) +
    BigInt(counts.completion - reasoning) * BigInt(rates.output) +
    BigInt(reasoning) * BigInt(rates.reasoning)
  return Number((sum + PER_MILLION / 2n) / PER_MILLION)
}

/**
 * The most a request can cost before it is made, in micro-dollars (rounded up): every prompt token at the dearer of
 * input and cache write, and up to `completion` tokens at the dearer of output and reasoning. What a budget reserves.
 */
export function estimateMicros(rates: Rates, prompt: number, completion: number): number {
  const sum =
    BigInt(prompt) * BigInt(Math.max(rates.input, rates.cacheWrite, rates.cachedInput)) +
    BigInt(completion) * BigInt(Math.max(rates.output, rates.reasoning))
  return Number((sum + PER_MILLION - 1n) / PER_MILLION)
}

/** One model's prices from a date on. `id` names the version, which a ledger row refers to. */
export type PriceVersion = { id: string; model: string; from: Date; rates: Rates }

/** What a request is priced by: its public model name, then `provider/upstream model`, then the upstream model. */
export type PricedModel = { model: string; provider?: string | null; upstreamModel?: string | null }

/**
 * Every version of the price table, for lookups on the request path (no database round trip). A change applies
 * from its date and never rewrites the past: each row's cost is computed once, with the version in effect at its time.
 */
export class PriceBook {
  #byModel = new Map<string, PriceVersion[]>()

  constructor(versions: readonly PriceVersion[] = []) {
    this.replace(versions)
  }

  /** Swaps in a new table (a reload, or versions read from the database). */
  replace(versions: readonly PriceVersion[]): void {
    const byModel = new Map<string, PriceVersion[]>()
    for (const version of versions) {
      const list = byModel.get(version.model) ?? []
      list.push(version)
      byModel.set(version.model, list)
    }
    // Newest first, so a lookup stops at the first version already in effect.
    for (const list of byModel.values()) list.sort((a, b) => b.from.getTime() - a.from.getTime())
    this.#byModel = byModel
  }

  /** Every version, for listing. */
  versions(): PriceVersion[] {
    return [...this.#byModel.values()].flat()
  }

  /** The version in effect at `at` for the first key of `priced` that has one, or undefined: an unpriced model. */
  lookup(priced: PricedModel, at: Date): PriceVersion | undefined {
    const keys = [priced.model]
    if (priced.upstreamModel) {
      if (priced.provider) keys.push(`${priced.provider}/${priced.upstreamModel}`)
      keys.push(priced.upstreamModel)
    }
    const time = at.getTime()
    for (const key of keys) {
      const found = this.#byModel.get(key)?.find((version) => version.from.getTime() <= time)
      if (found) return found
    }
    return undefined
  }
}
