/** A 1-based line and column; the column counts UTF-16 code units, as editors such as VS Code do. */
export interface LineColumn {
  line: number
  column: number
}

/**
 * Turns offsets into line/column pairs for one text. Lines are counted from the last offset asked for, so
 * offsets asked in ascending order cost one pass over the text up to the furthest of them, and a text that
 * needs no positions costs nothing.
 */
export class TextPositions {
  /** The line that holds `countedTo`, and where that line starts. */
  private line = 1
  private lineStart = 0
  private countedTo = 0

  constructor(private readonly text: string) {}

  /** The line and column of `offset` (clamped into the text). */
  at(offset: number): LineColumn {
    const clamped = Math.max(0, Math.min(offset, this.text.length))
    if (clamped < this.countedTo) {
      this.line = 1
      this.lineStart = 0
      this.countedTo = 0
    }
    const text = this.text
    let line = this.line
    let lineStart = this.lineStart
    for (
      let newline = text.indexOf('\n', this.countedTo);
      newline !== -1 && newline < clamped;
      newline = text.indexOf('\n', newline + 1)
    ) {
      line++
      lineStart = newline + 1
    }
    this.line = line
    this.lineStart = lineStart
    this.countedTo = clamped
    return { line, column: clamped - lineStart + 1 }
  }
}
