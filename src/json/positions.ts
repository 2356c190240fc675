/* What the positional scanner (positional.ts) reports of a text: where nodes start, duplicate keys, syntax errors. */

/**
 * Where one node starts: its value and, for a property, its key. Offsets count UTF-16 code units into the
 * text; lines and columns are 1-based (columns in UTF-16 code units, as editors count them).
 */
export interface NodePosition {
  value: number
  line: number
  column: number
  key?: number
  keyLine?: number
  keyColumn?: number
}

/** A key that appears a second time in the same object, located at that second occurrence. */
export interface DuplicateKey {
  pointer: string
  key: string
  offset: number
  line: number
  column: number
  firstLine: number
}

/** Why the text is not JSON, and where. */
interface JsonSyntaxError {
  offset: number
  message: string
}

export type JsonScan =
  | { ok: true; positions: Map<string, NodePosition>; duplicates: DuplicateKey[] }
  | { ok: false; error: JsonSyntaxError }
