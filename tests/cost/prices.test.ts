import { describe, expect, setDefaultTimeout, test } from 'bun:test'
import { costMicros, estimateMicros, PriceBook, type PriceEntry, type Rates, ratesOf } from '../../src/cost/prices'

setDefaultTimeout(30_000)

const gpt4o: PriceEntry = { input: 2.5, cached_input: 1.25, cache_write: 3.125, output: 10, reasoning: 12 }
const zero = { prompt: 0, completion: 0, cached: 0, cacheWrite: 0, reasoning: 0 }

describe('rates from dollars per million tokens', () => {
  test('are integer micro-dollars per million tokens', () => {
    expect(ratesOf(gpt4o)).toEqual({
      input: 2_500_000,
      cachedInput: 1_250_000,
      cacheWrite: 3_125_000,
      output: 10_000_000,
      reasoning: 12_000_000,
    })
  })
  test('reasoning defaults to output, cached input and cache write to input', () => {
    expect(ratesOf({ input: 0.15, output: 0.6 })).toEqual({
      input: 150_000,
      cachedInput: 150_000,
      cacheWrite: 150_000,
      output: 600_000,
      reasoning: 600_000,
    })
  })
})

describe('what a request costs, computed by hand', () => {
  const rates = ratesOf(gpt4o)
  // Each row: the counts, and the cost in micro-dollars worked out by hand from the prices above.
  const rows: [string, Partial<typeof zero>, number][] = [
    ['nothing', {}, 0],
    // 1,000 × $2.50/M = $0.0025
    ['1,000 prompt tokens', { prompt: 1000 }, 2500],
    // 600 × 2.50 + 400 × 1.25 = 1500 + 500
    ['400 of 1,000 read from the cache', { prompt: 1000, cached: 400 }, 2000],
    // 600 × 2.50 + 400 × 3.125 = 1500 + 1250
    ['400 of 1,000 written to the cache', { prompt: 1000, cacheWrite: 400 }, 2750],
    // 200 × 2.50 + 500 × 1.25 + 300 × 3.125 = 500 + 625 + 937.5
    ['reads and writes together', { prompt: 1000, cached: 500, cacheWrite: 300 }, 2063],
    // 500 × 10 + 300 × 12 = 5000 + 3600
    ['800 completion tokens, 300 of them reasoning', { completion: 800, reasoning: 300 }, 8600],
    // 1 × 2.50 = 2.5 micro-dollars: rounded half up, once
    ['one prompt token rounds half up', { prompt: 1 }, 3],
    // 1 × 1.25 = 1.25: rounds down
    ['one cached token rounds down', { prompt: 1, cached: 1 }, 1],
    // more cached than prompt is clamped to the prompt: 10 × 1.25
    ['cache reads beyond the prompt are clamped', { prompt: 10, cached: 50 }, 13],
    // 2^31 prompt tokens × 2.5 = 5,368,709,120: exact past 2^32
    ['counts past 2^31 stay exact', { prompt: 2 ** 31 }, 5_368_709_120],
  ]
  for (const [name, counts, expected] of rows)
    test(name, () => expect(costMicros(rates, { ...zero, ...counts })).toBe(expected))

  test('a product past 2^53 is still exact', () => {
    const dear: Rates = { input: 1e12, cachedInput: 1e12, cacheWrite: 1e12, output: 1e12, reasoning: 1e12 }
    // 9,007,199 × 1e12 / 1e6 = 9,007,199,000,000 (the sum, 9.007e18, is far past 2^53)
    expect(costMicros(dear, { ...zero, prompt: 9_007_199 })).toBe(9_007_199_000_000)
  })
})

describe('the estimate a budget reserves', () => {
  const rates = ratesOf(gpt4o)
  test('prices the prompt at its dearest and the completion at its dearest, rounded up', () => {
    // 1,000 × 3.125 + 100 × 12 = 3125 + 1200
    expect(estimateMicros(rates, 1000, 100)).toBe(4325)
    // 1 × 3.125 = 3.125, rounded up
    expect(estimateMicros(rates, 1, 0)).toBe(4)
  })
  test('is never below the cost of any answer within it', () => {
    for (const counts of [
      { ...zero, prompt: 1000, cacheWrite: 1000, completion: 100, reasoning: 100 },
      { ...zero, prompt: 999, cached: 3, completion: 7 },
    ])
      expect(estimateMicros(rates, counts.prompt, counts.completion)).toBeGreaterThanOrEqual(costMicros(rates, counts))
  })
})

describe('the price book', () => {
  const version = (id: string, model: string, from: string, input: number) => ({
    id,
    model,
    from: new Date(`${from}T00:00:00Z`),
    rates: ratesOf({ input, output: input }),
  })
  const book = new PriceBook([
    version('a1', 'gpt-4o', '2026-01-01', 2.5),
    version('a2', 'gpt-4o', '2026-11-15', 2),
    version('b1', 'openai/gpt-4o-mini', '2026-01-01', 0.15),
    version('c1', 'fast', '2026-01-01', 1),
  ])
  const rows: [string, Parameters<PriceBook['lookup']>[0], string, string | undefined][] = [
    ['the version in effect before a change', { model: 'gpt-4o' }, '2026-11-14T23:59:59Z', 'a1'],
    ['the new version from its date on', { model: 'gpt-4o' }, '2026-11-15T00:00:00Z', 'a2'],
    ['nothing before the first version', { model: 'gpt-4o' }, '2025-12-31T23:59:59Z', undefined],
    [
      'the public name first',
      { model: 'fast', provider: 'openai', upstreamModel: 'gpt-4o' },
      '2026-06-01T00:00:00Z',
      'c1',
    ],
    [
      'then provider/upstream',
      { model: 'mini', provider: 'openai', upstreamModel: 'gpt-4o-mini' },
      '2026-06-01T00:00:00Z',
      'b1',
    ],
    [
      'then the upstream model alone',
      { model: 'mine', provider: 'azure', upstreamModel: 'gpt-4o' },
      '2026-06-01T00:00:00Z',
      'a1',
    ],
    ['an unknown model has no price', { model: 'echo' }, '2026-06-01T00:00:00Z', undefined],
  ]
  for (const [name, priced, at, expected] of rows)
    test(name, () => expect(book.lookup(priced, new Date(at))?.id).toBe(expected))
})
