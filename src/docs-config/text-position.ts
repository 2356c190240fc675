/** A 1-based line and column; the column counts UTF-16 code units, as editors such as VS Code do. */
export interface LineColumn {
  line: number
  column: number
}

/**
 * Turns offsets into line/column pairs for one text. Line starts are found on demand, only as far into the
 * text as the furthest offset asked for, so a text that needs no positions costs nothing and one whose issues
 * sit near the top does not pay for the lines below them.
 */
export class TextPositions {
  private readonly lineStarts = [0]
  /** Every line start up to this offset is in `lineStarts`. */
  private searchedTo = 0

  constructor(private readonly text: string) {}

  /** The line and column of `offset` (clamped into the text). */
  at(offset: number): LineColumn {
    const clamped = Math.max(0, Math.min(offset, this.text.length))
    const starts = this.lineStarts
    if (clamped > this.searchedTo) {
      for (let newline = this.text.indexOf('\n', this.searchedTo); newline !== -1 && newline < clamped; newline = this.text.indexOf('\n', newline + 1)) {
        starts.push(newline + 1)
      }
      this.searchedTo = clamped
    }
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
