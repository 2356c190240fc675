import { isPlainObject } from './pointer'
import { CLOSE_OBJECT, COMMA, isWhitespace, OPEN_OBJECT } from './grammar'
import { endOfString, skipValue, skipWhitespace } from './skip'

/**
 * Finds where a few nodes of a parsed text start, without scanning the whole text: from the parent's known
 * offset, a property's key is searched for natively (`indexOf`) and taken when it is the only key of that
 * name from there on (or, in the outermost object, when the last one is followed only by that object's other
 * members); otherwise the parent object's own keys are read one by one, skipping their values, which is exact
 * whatever the nesting or escaping. Array items are reached by skipping the items before them. Lines and
 * columns are left to `TextPositions`.
 *
 * The text must be valid JSON without duplicate keys (the validator checks both first) and `root` its value
 * exactly as `JSON.parse` returned it: the search trusts that every key and string in `root` is written in
 * the text (the validator fills in defaults only after locating).
 *
 * @example
 * const search = new NodeSearch(text, JSON.parse(text))
 * search.offsetOf('/colors/primary', 'value') // where the value of colors.primary starts
 */
export class NodeSearch {
  private readonly root: Located
  /** Whether a `\u` escape may appear in the text, in which case any key could be written escaped. */
  private unicodeEscapes: boolean | undefined

  constructor(
    private readonly text: string,
    root: unknown,
  ) {
    // A byte-order mark is not JSON, but the validator tolerates one.
    const start = skipWhitespace(text, text.charCodeAt(0) === 0xfeff ? 1 : 0)
    this.root = { token: '', value: start, key: -1, node: root, children: [] }
  }

  /**
   * Where the node at `pointer` starts, at its key when `part` is 'key' and it is a property; its nearest
   * ancestor's start when the node is not in the text; -1 for a string that is not a JSON Pointer.
   */
  offsetOf(pointer: string, part: 'key' | 'value'): number {
    if (pointer !== '' && pointer.charCodeAt(0) !== SLASH) return -1
    let located = this.root
    for (let start = 1, end = 0; start <= pointer.length; start = end + 1) {
      end = pointer.indexOf('/', start)
      if (end === -1) end = pointer.length
      const child = this.child(located, unescapeToken(pointer.slice(start, end)))
      if (child === undefined) return this.valueOf(located)
      located = child
    }
    return part === 'key' && located.key !== -1 ? located.key : this.valueOf(located)
  }

  /** The child `token` of `parent`, remembered once found; undefined when it is not in the text. */
  private child(parent: Located, token: string): Located | undefined {
    for (const known of parent.children) if (known.token === token) return known
    const node = parent.node
    let child: Located
    if (Array.isArray(node)) {
      const index = ARRAY_INDEX.test(token) ? Number(token) : -1
      if (index < 0 || index >= node.length) return undefined
      child = {
        token,
        value: this.item(this.valueOf(parent), index, node[index]),
        key: -1,
        node: node[index],
        children: [],
      }
    } else {
      if (!isPlainObject(node) || !Object.hasOwn(node, token)) return undefined
      const key = this.key(this.valueOf(parent), token)
      if (key === -1) return undefined
      child = { token, value: -1, key, node: node[token], children: [] }
    }
    parent.children.push(child)
    return child
  }

  /** Where the node's value starts; for a property, found after its key on first use (a key finding needs none). */
  private valueOf(located: Located): number {
    if (located.value === -1) {
      const text = this.text
      located.value = skipWhitespace(text, skipWhitespace(text, endOfString(text, located.key)) + 1)
    }
    return located.value
  }

  /** The offset of the key `name` of the object that opens at `start`, or -1 when it is not written there. */
  private key(start: number, name: string): number {
    if (this.isWrittenLiterally(name)) {
      // Searched without its opening quote: a needle starting with '"', the commonest character of JSON,
      // made the native search several times slower.
      const needle = `${name}"`
      const first = this.nextKey(needle, start)
      if (first === -1) return this.keyByReading(start, name)
      // The object's key lies after `start`; when it is the only key of that name from there on, it is this one.
      let last = this.nextKey(needle, first + needle.length)
      if (last === -1) return first
      // Several: a vendor extra is usually appended at the end of the file, so the last one is tried as a key
      // of the outermost object before the object's keys are read one by one. A match is surely a key (not
      // the gap between two strings) when the name holds a character JSON only writes inside strings.
      if (start === this.root.value && ONLY_IN_STRINGS.test(name)) {
        for (let next = last; next !== -1; next = this.nextKey(needle, next + needle.length)) last = next
        if (this.endsTheDocument(last)) return last
      }
    }
    return this.keyByReading(start, name)
  }

  /** Whether the object that holds the key at `key` is the outermost one, read by skipping its later members. */
  private endsTheDocument(key: number): boolean {
    const text = this.text
    let pos = key
    for (;;) {
      pos = skipWhitespace(
        text,
        skipValue(text, skipWhitespace(text, skipWhitespace(text, endOfString(text, pos)) + 1)),
      )
      const next = text.charCodeAt(pos)
      if (next === CLOSE_OBJECT) return skipWhitespace(text, pos + 1) === text.length
      if (next !== COMMA) return false
      pos = skipWhitespace(text, pos + 1)
      if (text.charCodeAt(pos) !== QUOTE) return false
    }
  }

  /**
   * True when every key equal to `name` must be written as `"name"` in the text: no `\u` escape occurs in the
   * text, and `name` holds nothing the short escapes write (`\"`, `\\`, `\/`, `\n` …). The object's own key is
   * then among the matches, so a single match from the object's start on can only be that key.
   */
  private isWrittenLiterally(name: string): boolean {
    this.unicodeEscapes ??= this.text.includes('\\u')
    return !this.unicodeEscapes && LITERAL_KEY.test(name)
  }

  /**
   * The offset of the next opening quote after `from` followed by `needle` (a key and its closing quote) and
   * a colon, the quote being unescaped. Every key written literally passes; the checks only keep most other
   * text (a value equal to the key, the key inside a longer string) from counting as a second match.
   */
  private nextKey(needle: string, from: number): number {
    return this.nextString(needle, from, true)
  }

  /** Like {@link nextKey}, for any string (key or value) when `keysOnly` is false. */
  private nextString(needle: string, from: number, keysOnly: boolean): number {
    const text = this.text
    for (let at = text.indexOf(needle, from + 1); at !== -1; at = text.indexOf(needle, at + 1)) {
      const quote = at - 1
      if (text.charCodeAt(quote) !== QUOTE) continue
      let backslash = quote - 1
      while (text.charCodeAt(backslash) === BACKSLASH) backslash--
      if ((quote - 1 - backslash) % 2 !== 0) continue
      if (!keysOnly || text.charCodeAt(skipWhitespace(text, at + needle.length)) === COLON) return quote
    }
    return -1
  }

  /** Reads the keys of the object that opens at `start` in turn, skipping their values. */
  private keyByReading(start: number, name: string): number {
    const text = this.text
    let pos = skipWhitespace(text, start + 1)
    while (text.charCodeAt(pos) === QUOTE) {
      const end = endOfString(text, pos)
      const raw = text.slice(pos + 1, end - 1)
      if ((raw.includes('\\') ? (JSON.parse(text.slice(pos, end)) as string) : raw) === name) return pos
      pos = skipWhitespace(text, skipValue(text, skipWhitespace(text, skipWhitespace(text, end) + 1)))
      if (text.charCodeAt(pos) !== COMMA) return -1
      pos = skipWhitespace(text, pos + 1)
    }
    return -1
  }

  /** The offset of item `index` of the array that opens at `start`. */
  private item(start: number, index: number, item: unknown): number {
    if (index > 0) {
      const found = this.itemBySearch(start, item)
      if (found !== -1) return found
    }
    const text = this.text
    let pos = skipWhitespace(text, start + 1)
    for (let skipped = 0; skipped < index; skipped++)
      pos = skipWhitespace(text, skipWhitespace(text, skipValue(text, pos)) + 1)
    return pos
  }
  /**
   * An item found without skipping the items before it, by a string only it holds from the array's start
   * on: the item itself, or the value of an object's first key (then checked, reading backwards, to follow
   * that key right after the object's opening brace). -1 when there is no such string.
   */
  private itemBySearch(start: number, item: unknown): number {
    const text = this.text
    if (typeof item === 'string') return this.onlyString(item, start)
    if (!isPlainObject(item)) return -1
    for (const key in item) {
      const value = item[key]
      if (typeof value !== 'string' || !this.isWrittenLiterally(key)) return -1
      const at = this.onlyString(value, start)
      if (at === -1) return -1
      let pos = skipWhitespaceBackwards(text, at - 1)
      if (text.charCodeAt(pos) !== COLON) return -1
      pos = skipWhitespaceBackwards(text, pos - 1) - key.length - 1
      if (text.charCodeAt(pos) !== QUOTE || !text.startsWith(`${key}"`, pos + 1)) return -1
      pos = skipWhitespaceBackwards(text, pos - 1)
      return text.charCodeAt(pos) === OPEN_OBJECT ? pos : -1
    }
    return -1
  }

  /** The offset of the string `value` when it is written literally and only once from `start` on, else -1. */
  private onlyString(value: string, start: number): number {
    if (value === '' || !this.isWrittenLiterally(value)) return -1
    const needle = `${value}"`
    const first = this.nextString(needle, start, false)
    return first !== -1 && this.nextString(needle, first + needle.length, false) === -1 ? first : -1
  }
}

/**
 * A node found in the text: its reference token, where its value starts (-1 until asked for) and its key
 * (-1 for the root and array items), its parsed value, and the children already looked for.
 */
interface Located {
  token: string
  value: number
  key: number
  node: unknown
  children: Located[]
}

const QUOTE = 34
const SLASH = 47
const BACKSLASH = 92
const COLON = 58
const ARRAY_INDEX = /^(?:0|[1-9][0-9]*)$/
const LITERAL_KEY = /^[^"\\/\u0000-\u001f]*$/
/** Characters that never appear outside strings in JSON (whitespace, punctuation, numbers, true/false/null). */
const ONLY_IN_STRINGS = /[^\s{}[\],:0-9+\-.eEtrufalsn]/

function unescapeToken(token: string): string {
  return token.includes('~') ? token.replace(/~1/g, '/').replace(/~0/g, '~') : token
}

function skipWhitespaceBackwards(text: string, pos: number): number {
  while (isWhitespace(text.charCodeAt(pos))) pos--
  return pos
}
