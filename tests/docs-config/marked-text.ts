/**
 * Test documents mark the place an issue must be reported with `¦`, so each expectation is written where
 * it applies instead of as hand-counted numbers.
 */
const MARK = '¦'

/** The text without its mark, and the 1-based line and column where the mark stood. */
export function unmark(marked: string): { text: string; line: number; column: number } {
  const offset = marked.indexOf(MARK)
  if (offset === -1 || marked.indexOf(MARK, offset + 1) !== -1)
    throw new Error(`expected exactly one ${MARK} in ${marked}`)
  const before = marked.slice(0, offset)
  const lines = before.split('\n')
  return { text: before + marked.slice(offset + 1), line: lines.length, column: lines[lines.length - 1].length + 1 }
}

/** A small valid docs.json whose fourth line is `extra` (a property, or several), for rule tables. */
export function withProperty(extra: string): string {
  return `{\n  "name": "Acme",\n  "navigation": [{ "group": "Start", "pages": ["intro"] }],\n  ${extra}\n}\n`
}

/** The text at a 1-based line and column, for checking what an issue points at. */
export function textAt(text: string, line: number, column: number): string {
  return (text.split('\n')[line - 1] ?? '').slice(column - 1)
}
