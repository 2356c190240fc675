import { type Counts, costMicros, estimateMicros, type PricedModel, type PriceVersion } from '../cost/prices'

/**
 * Budgets in money (`limits.budget_usd`): counted in integer micro-dollars, from the price table (src/cost/prices.ts).
 * A request reserves the most it can cost before it is sent, and is settled at exactly what its usage cost, the same
 * function and the same price version as its ledger row's cost, so the month's counter and the ledger agree.
 */

/** How a request is priced: `PriceBook.lookup`, handed in by the composition (src/app.ts), which holds the table. */
export type PriceLookup = (priced: PricedModel, at: Date) => PriceVersion | undefined

/**
 * What a chat request may cost, as known at its admission: the models that may serve it (its public name, and each
 * route of it with its provider and upstream model, since a fallback may serve it; listed only for a token with a
 * money budget, off the path of every other request), and its token estimate, split.
 */
export type CostEstimate = { candidates: () => readonly PricedModel[]; prompt: number; completion: number }

/**
 * The rates a money reservation is made at, in integer micro-dollars per million tokens: the dearest prompt rate
 * (input, cache read or cache write) and the dearest completion rate (output or reasoning) of every candidate that
 * has a price. Journaled with the request, so that a survivor charges a dead holder's estimate at the same rates.
 */
export type ReservedRates = { prompt: number; completion: number }

/** The rates to reserve at, or undefined when no candidate has a price: an unpriced model costs nothing. */
export function reservedRates(
  lookup: PriceLookup,
  candidates: readonly PricedModel[],
  at: Date,
): ReservedRates | undefined {
  let found: ReservedRates | undefined
  for (const candidate of candidates) {
    const rates = lookup(candidate, at)?.rates
    if (!rates) continue
    found = {
      prompt: Math.max(found?.prompt ?? 0, rates.input, rates.cachedInput, rates.cacheWrite),
      completion: Math.max(found?.completion ?? 0, rates.output, rates.reasoning),
    }
  }
  return found
}

/** The most `prompt` and `completion` tokens can cost at `rates` (rounded up): what the budget reserves. */
export function reservedMicros(rates: ReservedRates, prompt: number, completion: number): number {
  const { prompt: dearIn, completion: dearOut } = rates
  return estimateMicros(
    { input: dearIn, cachedInput: dearIn, cacheWrite: dearIn, output: dearOut, reasoning: dearOut },
    prompt,
    completion,
  )
}

/**
 * What a finished request used, to price it: the model that served it, its exact counts (`cacheWrite` when the
 * provider reports it, else 0), and the time its ledger row carries (the price version in effect then applies).
 */
export type UsedCost = {
  priced: PricedModel
  counts: Omit<Counts, 'cacheWrite'> & { cacheWrite?: number }
  at: Date
  /**
   * What it cost, when its caller priced it already with the same table (the ledger row's cost, `Pricing.price` of the
   * same `priced`, `at` and counts): not priced a second time (#31).
   */
  micros?: number
}

/** What `used` cost, in micro-dollars: `costMicros` at the version in effect at its time; 0 when unpriced. */
export function spentMicros(lookup: PriceLookup, used: UsedCost): number {
  if (used.micros !== undefined) return used.micros
  const version = lookup(used.priced, used.at)
  return version ? costMicros(version.rates, { ...used.counts, cacheWrite: used.counts.cacheWrite ?? 0 }) : 0
}

/** Micro-dollars as an author writes dollars: `$25.00`, `$0.50`, `$0.000125` (at least cents, at most micros). */
export function usd(micros: number): string {
  const whole = Math.floor(micros / 1_000_000)
  const fraction = String(micros % 1_000_000)
    .padStart(6, '0')
    .replace(/0+$/, '')
    .padEnd(2, '0')
  return `$${whole}.${fraction}`
}
