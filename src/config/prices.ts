import { Type as t, type Static } from '@sinclair/typebox'
import { Value } from '@sinclair/typebox/value'
import type { ConfigFile } from './file'

/*
 * The price table as an author writes it: `prices:` in trellis.yaml or `TRELLIS_PRICES` (JSON), by model. The schema
 * lives here, with the rest of the configuration, because configuration imports no access room; src/cost/prices.ts
 * turns it into integer rates and re-exports it.
 */

/** Largest price accepted, in dollars per million tokens: keeps every product of a count and a rate exact. */
export const MAX_PRICE_USD = 1_000_000

const Dollars = (what: string) =>
  t.Number({ minimum: 0, maximum: MAX_PRICE_USD, description: `${what}, US dollars per million tokens` })

/** One model's prices as an author writes them (`prices:` in trellis.yaml, `TRELLIS_PRICES`). */
export const PriceEntry = t.Object(
  {
    input: Dollars('Prompt tokens not read from a cache'),
    cached_input: t.Optional(Dollars('Prompt tokens read from a cache (default: `input`)')),
    cache_write: t.Optional(Dollars('Prompt tokens written to a cache (default: `input`)')),
    output: Dollars('Completion tokens other than reasoning'),
    reasoning: t.Optional(Dollars('Reasoning tokens (default: `output`)')),
    from: t.Optional(
      t.String({
        pattern: '^\\d{4}-\\d{2}-\\d{2}$',
        description:
          'The UTC date from which these prices apply; a date already past when they are first recorded means from ' +
          'that moment, since rows priced before were priced once (default: from when they are recorded)',
      }),
    ),
  },
  { additionalProperties: false },
)
export type PriceEntry = Static<typeof PriceEntry>

/**
 * The table: a public model name (`gpt-4o`), `provider/upstream model` (`anthropic/claude-sonnet-4-5`) or an upstream
 * model name, to its prices. Entries here replace the default table's entry of the same key, whole.
 */
export const PricesSchema = t.Record(t.String({ minLength: 1, maxLength: 200 }), PriceEntry, {
  description:
    'Prices by public model, provider/upstream model or upstream model, in US dollars per million tokens; each ' +
    'entry replaces the default table’s entry of the same name. A change applies from its `from` date, or from ' +
    'the moment it is first recorded when that date is past.',
})
export type Prices = Static<typeof PricesSchema>

/** A `from` that matches the pattern but is no calendar date (2026-02-30), or undefined when it is one. */
function badDate(from: string | undefined): string | undefined {
  if (from === undefined) return undefined
  const date = new Date(`${from}T00:00:00Z`)
  return Number.isNaN(date.getTime()) || date.toISOString().slice(0, 10) !== from
    ? `must be a calendar date such as 2026-01-01, got "${from}"`
    : undefined
}

/**
 * The table of the configuration: `TRELLIS_PRICES` when set (JSON of the same shape), else `prices:` of the file.
 * Throws a message naming the variable; the file's problems are reported where they are written.
 */
export function parsePrices(raw: string | undefined, file: ConfigFile | undefined): Prices {
  if (raw === undefined || raw.trim() === '') {
    const prices = (file?.value.prices ?? {}) as Prices
    for (const [model, entry] of Object.entries(prices)) {
      const problem = badDate(entry.from)
      if (problem) file!.report(['prices', model, 'from'], `prices.${model}.from: ${problem}`)
    }
    return prices
  }
  let value: unknown
  try {
    value = JSON.parse(raw)
  } catch {
    throw new Error(`TRELLIS_PRICES: not valid JSON: ${raw.slice(0, 80)}`)
  }
  if (!Value.Check(PricesSchema, value)) {
    const first = Value.Errors(PricesSchema, value).First()
    throw new Error(
      `TRELLIS_PRICES: ${first?.path || '(root)'}: ${first?.message}; expected ` +
        '{"<model>": {input, output, cached_input?, cache_write?, reasoning?, from?}} in US dollars per million tokens',
    )
  }
  for (const [model, entry] of Object.entries(value)) {
    const problem = badDate(entry.from)
    if (problem) throw new Error(`TRELLIS_PRICES: /${model}/from: ${problem}`)
  }
  return value
}
