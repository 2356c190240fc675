/** A 1-based line and column; the column counts UTF-16 code units, as editors such as VS Code do. */
export interface LineColumn {
  line: number
  column: number
}

/**
 * Turns offsets into line/column pairs for one text. Line starts are computed once, on first use, so a text
 * that needs no positions costs nothing.
 */
export class TextPositions {
  private lineStarts: number[] | undefined

  constructor(private readonly text: string) {}

  /** The line and column of `offset` (clamped into the text). */
  at(offset: number): LineColumn {
    const starts = (this.lineStarts ??= computeLineStarts(this.text))
    const clamped = Math.max(0, Math.min(offset, this.text.length))
    let low = 0
    let high = starts.length - 1
    while (low < high) {
      const middle = (low + high + 1) >> 1
      if (starts[middle] <= clamped) low = middle
      else high = middle - 1
    }
    return { line: low + 1, column: clamped - starts[low] + 1 }
  }
}

function computeLineStarts(text: string): number[] {
  const starts = [0]
  for (let index = text.indexOf('\n'); index !== -1; index = text.indexOf('\n', index + 1)) starts.push(index + 1)
  return starts
}
