import { Type } from '@sinclair/typebox'
import { Value } from '@sinclair/typebox/value'
import { PriceEntry, type PriceVersion, ratesOf } from './prices'

/** `TRELLIS_PRICES`: `{"<model>": {input, cached_input?, cache_write?, output, reasoning?, from?}}`, dollars per million. */
const PricesSchema = Type.Record(Type.String({ minLength: 1, maxLength: 200 }), PriceEntry)

/**
 * The price table from `TRELLIS_PRICES` (JSON), one version per model from its `from` date (default: always); unset
 * or empty is no prices at all (every model unpriced: free, a money budget admits it). Environment only for now, read
 * by the composition (src/app.ts, src/runtimes/bootstrap.ts) from `config.env`: the configuration module may not
 * import this room.
 */
export function parsePrices(raw: string | undefined): PriceVersion[] {
  if (raw === undefined || raw.trim() === '') return []
  let value: unknown
  try {
    value = JSON.parse(raw)
  } catch {
    throw new Error(`TRELLIS_PRICES: not valid JSON: ${raw.slice(0, 80)}`)
  }
  if (!Value.Check(PricesSchema, value)) {
    const first = Value.Errors(PricesSchema, value).First()
    throw new Error(
      `TRELLIS_PRICES: ${first?.path || '(root)'}: ${first?.message}; expected {"<model>": {input, output, cached_input?, ` +
        'cache_write?, reasoning?, from?}} in US dollars per million tokens',
    )
  }
  return Object.entries(value).map(([model, entry]) => {
    const from = entry.from ?? '1970-01-01'
    return { id: `${model}@${from}`, model, from: new Date(`${from}T00:00:00Z`), rates: ratesOf(entry) }
  })
}
