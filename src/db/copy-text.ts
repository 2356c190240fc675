/**
 * Rows in the text format of PostgreSQL's `COPY … FROM STDIN`: one line per row, columns
 * separated by tabs, `\N` for NULL. The cheapest way to hand PostgreSQL many rows: measured for
 * the usage ledger, it costs the database about half of what one INSERT of a JSON parameter
 * does, on PostgreSQL and on PGlite (BENCHMARKS.md, "Governance").
 */
export type CopyValue = string | number | boolean | Date | null

/** Backslash, newline, carriage return and tab are the characters the text format escapes. */
const SPECIAL = /[\\\n\r\t]/
const SPECIALS = /[\\\n\r\t]/g
const ESCAPES: Record<string, string> = { '\\': '\\\\', '\n': '\\n', '\r': '\\r', '\t': '\\t' }

function field(value: CopyValue): string {
  if (value === null) return '\\N'
  if (typeof value === 'string') return SPECIAL.test(value) ? value.replace(SPECIALS, (c) => ESCAPES[c]!) : value
  // NaN and the infinities have no place in the columns copied: NULL, which a NOT NULL column refuses.
  if (typeof value === 'number') return Number.isFinite(value) ? String(value) : '\\N'
  if (typeof value === 'boolean') return value ? 't' : 'f'
  return value.toISOString()
}

/** One row, its values in the COPY's column order, as a line of COPY text (with its newline). */
export function copyLine(values: readonly CopyValue[]): string {
  let line = field(values[0]!)
  for (let i = 1; i < values.length; i++) line += '\t' + field(values[i]!)
  return line + '\n'
}
