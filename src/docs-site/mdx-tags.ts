/*
 * Scanning a page's MDX for component tags, MDX comments and ESM blocks, outside code (fences and
 * code spans), and pairing open and close tags; markdown-components.ts lowers what is found.
 */

/** A component's props: a quoted string, `{true}`/`{false}` and a bare name (true). */
export type Props = Record<string, string | boolean>

/** One component tag (or an MDX comment or ESM block to drop) and where it is in the page. */
export interface Tag {
  kind: 'open' | 'close' | 'self' | 'drop'
  name: string
  props: Props
  start: number
  end: number
  /** For a paired open tag: the index of its close tag. */
  closeAt?: number
}

const SPECIAL = /[\n`<{]/g
const FENCE_OPEN = /[ \t]*(`{3,}|~{3,})/y
const TAG_NAME = /<(\/?)([A-Z][A-Za-z0-9]*(?:\.[A-Za-z0-9]+)*)/y
const SPACE = /\s*/y
const PROP_NAME = /[A-Za-z_$][\w$:.-]*/y
const EQUALS = /\s*=\s*/y
const BRACE_OR_QUOTE = /[{}"'`]/g
const BLANK_LINE = /\n[ \t]*(?=\n|$)/g
/**
 * Capitalised spellings of the elements whose content the sanitiser drops (`<SCRIPT>`, `<Style>`): left
 * to it as HTML, so their content is not kept as text the way an unknown component's is.
 */
const RAW_HTML = new Set([
  'script',
  'style',
  'textarea',
  'title',
  'xmp',
  'noscript',
  'noembed',
  'noframes',
  'iframe',
  'template',
  'svg',
  'math',
  'select',
  'option',
  'plaintext',
])
/** Real pages nest components a few levels deep; deeper ones are dropped so that dedenting stays cheap. */
const MAX_NESTING = 16
/** Beyond this a `<Capitalised` is taken for text: an unclosed brace or quote must not make the scan quadratic. */
const MAX_TAG_LENGTH = 2000
/**
 * A tag may be longer when a prop holds JSX (`icon={<svg …/>}` with its path data runs to several KB): up to this
 * length, while the page's allowance for long tags lasts. The allowance bounds the extra scanning of a page of
 * unclosed tags to a fixed amount, so the scan stays linear.
 */
const LONG_TAG_LENGTH = 64 * 1024
const LONG_TAG_ALLOWANCE = 512 * 1024

/** The component tags, MDX comments and ESM blocks of a page, outside code, in order. */
export function scanTags(source: string): Tag[] {
  const tags: Tag[] = []
  const codeSpanEnd = codeSpanReader(source)
  let allowance = LONG_TAG_ALLOWANCE
  let at = 0
  let lineStart = true
  while (at < source.length) {
    if (lineStart) {
      lineStart = false
      FENCE_OPEN.lastIndex = at
      const fence = FENCE_OPEN.exec(source)
      if (fence !== null) {
        at = fenceEnd(source, at + fence[0].length, fence[1]!)
        continue
      }
      // ESM starts a block of its own, as in MDX: an "export …" line continuing a paragraph is prose.
      if ((source.startsWith('import ', at) || source.startsWith('export ', at)) && followsBlankLine(source, at)) {
        const end = paragraphEnd(source, at)
        tags.push({ kind: 'drop', name: '', props: {}, start: at, end })
        at = end
        continue
      }
    }
    SPECIAL.lastIndex = at
    const special = SPECIAL.exec(source)
    if (special === null) break
    at = special.index
    const character = source[at]
    if (character === '\n') {
      at += 1
      lineStart = true
    } else if (character === '`') {
      at = codeSpanEnd(at)
    } else if (source.startsWith('<!--', at)) {
      const close = source.indexOf('-->', at + 4)
      at = close === -1 ? source.length : close + 3
    } else if (source.startsWith('{/*', at)) {
      const close = source.indexOf('*/}', at + 3)
      const end = close === -1 ? source.length : close + 3
      tags.push({ kind: 'drop', name: '', props: {}, start: at, end })
      at = end
    } else {
      const reach = allowance > 0 ? LONG_TAG_LENGTH : MAX_TAG_LENGTH
      const tag = character === '<' ? parseTag(source, at, reach) : undefined
      if (character === '<' && reach > MAX_TAG_LENGTH) {
        const scanned = tag === undefined ? Math.min(reach, source.length - at) : tag.end - at
        if (scanned > MAX_TAG_LENGTH) allowance -= scanned
      }
      if (tag === undefined) at += 1
      else {
        tags.push(tag)
        at = tag.end
      }
    }
  }
  return tags
}

/**
 * The end of a fenced code block whose opening marker ends at `from`: after its closing fence, or the end of the page.
 */
function fenceEnd(source: string, from: number, marker: string): number {
  const closing = new RegExp(`\\n[ \\t]*${marker[0] === '`' ? '`' : '~'}{${marker.length},}[ \\t]*(?=\\n|$)`, 'g')
  closing.lastIndex = from
  const match = closing.exec(source)
  return match === null ? source.length : match.index + match[0].length
}

function followsBlankLine(source: string, lineStart: number): boolean {
  let position = lineStart - 2
  while (position >= 0 && (source[position] === ' ' || source[position] === '\t')) position -= 1
  return position < 0 || source[position] === '\n'
}

function paragraphEnd(source: string, from: number): number {
  BLANK_LINE.lastIndex = from
  const blank = BLANK_LINE.exec(source)
  return blank === null ? source.length : blank.index
}

/**
 * A reader of code spans: given the position of a run of backticks, returns the position after the span
 * it opens (closed by a run as long, within the paragraph), or after the lone run. The paragraph's runs
 * are listed once, by length, as markdown-it does, so a page of unmatched runs stays linear.
 */
function codeSpanReader(source: string): (at: number) => number {
  let paragraphLimit = -1
  let runs = new Map<number, { positions: number[]; next: number }>()
  return (at) => {
    let run = at
    while (source[run] === '`') run += 1
    if (at >= paragraphLimit) {
      paragraphLimit = paragraphEnd(source, at)
      runs = new Map()
      const pattern = /`+/g
      pattern.lastIndex = at
      for (
        let match = pattern.exec(source);
        match !== null && match.index < paragraphLimit;
        match = pattern.exec(source)
      ) {
        const list = runs.get(match[0].length) ?? { positions: [], next: 0 }
        list.positions.push(match.index)
        runs.set(match[0].length, list)
      }
    }
    const list = runs.get(run - at)
    if (list === undefined) return run
    while (list.next < list.positions.length && list.positions[list.next]! <= at) list.next += 1
    const close = list.positions[list.next]
    if (close === undefined) return run
    list.next += 1
    return close + (run - at)
  }
}

function parseTag(source: string, at: number, reach: number): Tag | undefined {
  TAG_NAME.lastIndex = at
  const head = TAG_NAME.exec(source)
  if (head === null) return undefined
  const name = head[2]!
  if (RAW_HTML.has(name.toLowerCase())) return undefined
  let position = at + head[0].length
  if (head[1] === '/') {
    SPACE.lastIndex = position
    position += SPACE.exec(source)![0].length
    return source[position] === '>' ? { kind: 'close', name, props: {}, start: at, end: position + 1 } : undefined
  }
  const props: Props = {}
  while (position - at < reach) {
    SPACE.lastIndex = position
    position += SPACE.exec(source)![0].length
    if (source[position] === '>') return { kind: 'open', name, props, start: at, end: position + 1 }
    if (source.startsWith('/>', position)) return { kind: 'self', name, props, start: at, end: position + 2 }
    if (source[position] === '{') {
      const end = braceEnd(source, position, at + reach)
      if (end === undefined) return undefined
      position = end
      continue
    }
    PROP_NAME.lastIndex = position
    const prop = PROP_NAME.exec(source)
    if (prop === null) return undefined
    position += prop[0].length
    EQUALS.lastIndex = position
    const equals = EQUALS.exec(source)
    if (equals === null) {
      props[prop[0]] = true
      continue
    }
    position += equals[0].length
    const quote = source[position]
    if (quote === '"' || quote === "'") {
      const close = source.indexOf(quote, position + 1)
      if (close === -1 || close - at > reach) return undefined
      props[prop[0]] = source.slice(position + 1, close)
      position = close + 1
    } else if (quote === '{') {
      const end = braceEnd(source, position, at + reach)
      if (end === undefined) return undefined
      const value = expressionValue(source.slice(position + 1, end - 1))
      if (value !== undefined) props[prop[0]] = value
      position = end
    } else return undefined
  }
  return undefined
}

/** After the `}` matching the `{` at `at`, skipping quoted strings; undefined if it does not close before `until`. */
function braceEnd(source: string, at: number, until: number): number | undefined {
  const limit = Math.min(source.length, until)
  let depth = 0
  BRACE_OR_QUOTE.lastIndex = at
  for (
    let match = BRACE_OR_QUOTE.exec(source);
    match !== null && match.index < limit;
    match = BRACE_OR_QUOTE.exec(source)
  ) {
    const character = match[0]
    if (character === '{') depth += 1
    else if (character === '}') {
      depth -= 1
      if (depth === 0) return match.index + 1
    } else {
      const close = source.indexOf(character, match.index + 1)
      if (close === -1 || close >= limit) return undefined
      BRACE_OR_QUOTE.lastIndex = close + 1
    }
  }
  return undefined
}

/**
 * The literal a JSX expression prop holds (`{"text"}`, `{true}`, `{["a", "b"]}` as "a, b"); other expressions
 * (`{<svg …/>}`, variables) are not evaluated.
 */
function expressionValue(expression: string): string | boolean | undefined {
  const trimmed = expression.trim()
  if (trimmed.startsWith('[')) return stringList(trimmed)
  if (trimmed === 'true' || trimmed === 'false') return trimmed === 'true'
  if (/^(["'`])[^]*\1$/.test(trimmed) && trimmed.length >= 2) return trimmed.slice(1, -1)
  if (/^\d+$/.test(trimmed)) return trimmed
  return undefined
}

function stringList(json: string): string | undefined {
  try {
    const value: unknown = JSON.parse(json)
    return Array.isArray(value) && value.every((item) => typeof item === 'string') ? value.join(', ') : undefined
  } catch {
    return undefined
  }
}

// ---- Lowering ----

/**
 * Pairs each close tag with the nearest open tag of its name (recorded in `closeAt`); tags left unpaired,
 * and components nested deeper than MAX_NESTING, are dropped. Counting the open tags by name keeps a page
 * of stray closing tags linear.
 */
export function pair(tags: Tag[]): void {
  const open: number[] = []
  const openByName = new Map<string, number>()
  const drop = (index: number) => {
    const tag = tags[index]!
    tag.kind = 'drop'
    openByName.set(tag.name, openByName.get(tag.name)! - 1)
  }
  tags.forEach((tag, index) => {
    if (tag.kind === 'open') {
      if (open.length >= MAX_NESTING) tag.kind = 'drop'
      else {
        open.push(index)
        openByName.set(tag.name, (openByName.get(tag.name) ?? 0) + 1)
      }
    } else if (tag.kind === 'close') {
      if ((openByName.get(tag.name) ?? 0) === 0) {
        tag.kind = 'drop'
        return
      }
      while (tags[open.at(-1)!]!.name !== tag.name) drop(open.pop()!)
      const opener = open.pop()!
      openByName.set(tag.name, openByName.get(tag.name)! - 1)
      tags[opener]!.closeAt = index
    }
  })
  for (const unpaired of open) drop(unpaired)
}
