import { escapeHtml } from './html'

/**
 * The MDX of Mintlify pages, lowered to the Markdown-with-HTML that markdown-it reads. Pages are not
 * compiled as MDX (no JavaScript runs): top-level `import`/`export` blocks and `{/* comments *\/}` are
 * dropped, the common components become plain HTML (callouts, cards, steps, accordions, code groups),
 * and any other component tag is dropped with its content kept. Everything produced here still goes
 * through the sanitiser, so this pass decides layout, never safety.
 *
 * Component content is Markdown. Each component's tags are put on lines of their own between blank
 * lines, and its content is dedented: MDX pages indent content inside components, and four spaces
 * would otherwise make a fence or a list inert.
 */

type Props = Record<string, string | boolean>

interface Tag {
  kind: 'open' | 'close' | 'self' | 'drop'
  name: string
  props: Props
  start: number
  end: number
  /** For a paired open tag: the index of its close tag. */
  closeAt?: number
}

/** An icon the lowered HTML asks for; its placeholder is the prefix followed by its index in the list. */
export interface IconRequest {
  name: string
  iconType?: string
}

interface Lowering {
  placeholderPrefix: string
  icons: IconRequest[]
}

const CALLOUTS: Record<string, string> = { Note: 'Note', Tip: 'Tip', Info: 'Info', Warning: 'Warning', Check: 'Check', Danger: 'Danger' }

type Render = (props: Props, lowering: Lowering) => [open: string, close: string]

const COMPONENTS: Record<string, Render> = {
  ...Object.fromEntries(
    Object.entries(CALLOUTS).map(([name, label]): [string, Render] => [
      name,
      () => [`<aside class="callout callout-${name.toLowerCase()}" role="note" aria-label="${label}">`, '</aside>'],
    ]),
  ),
  Card: (props, lowering) => {
    const href = text(props.href)
    const icon = iconPlaceholder(props, lowering)
    const title = text(props.title)
    const head = [icon === '' ? '' : `<span class="card-icon">${icon}</span>`, title === undefined ? '' : `<strong class="card-title">${escapeHtml(title)}</strong>`].join('')
    return href === undefined ? [`<div class="card">\n${head}`, '</div>'] : [`<a class="card" href="${escapeHtml(href)}">\n${head}`, '</a>']
  },
  CardGroup: (props) => [`<div class="card-group${columnsClass(props)}">`, '</div>'],
  Columns: (props) => [`<div class="card-group${columnsClass(props)}">`, '</div>'],
  Steps: () => ['<ol class="steps">', '</ol>'],
  Step: (props) => {
    const title = text(props.title)
    return [`<li class="steps-item">${title === undefined ? '' : `\n<strong class="steps-title">${escapeHtml(title)}</strong>`}`, '</li>']
  },
  CodeGroup: () => ['<div class="code-group">', '</div>'],
  Accordion: (props) => {
    const open = props.defaultOpen === true || props.defaultOpen === 'true' ? ' open' : ''
    return [`<details${open}>\n<summary>${escapeHtml(text(props.title) ?? 'Details')}</summary>`, '</details>']
  },
}

function text(value: string | boolean | undefined): string | undefined {
  return typeof value === 'string' && value.trim() !== '' ? value.trim() : undefined
}

function columnsClass(props: Props): string {
  const cols = text(props.cols)
  return cols !== undefined && /^[1-4]$/.test(cols) ? ` card-group-cols-${cols}` : ''
}

function iconPlaceholder(props: Props, lowering: Lowering): string {
  const name = text(props.icon)
  if (name === undefined) return ''
  lowering.icons.push({ name, iconType: text(props.iconType) })
  return `${lowering.placeholderPrefix}${lowering.icons.length - 1}`
}

// ---- Scanning: component tags, MDX comments and ESM blocks, outside code ----

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
const RAW_HTML = new Set(['script', 'style', 'textarea', 'title', 'xmp', 'noscript', 'noembed', 'noframes', 'iframe', 'template', 'svg', 'math', 'select', 'option', 'plaintext'])
/** Real pages nest components a few levels deep; deeper ones are dropped so that dedenting stays cheap. */
const MAX_NESTING = 16
/** Beyond this a `<Capitalised` is taken for text: an unclosed brace or quote must not make the scan quadratic. */
const MAX_TAG_LENGTH = 2000

function scanTags(source: string): Tag[] {
  const tags: Tag[] = []
  const codeSpanEnd = codeSpanReader(source)
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
      const tag = character === '<' ? parseTag(source, at) : undefined
      if (tag === undefined) at += 1
      else {
        tags.push(tag)
        at = tag.end
      }
    }
  }
  return tags
}

/** The end of a fenced code block whose opening marker ends at `from`: after its closing fence, or the end of the page. */
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
      for (let match = pattern.exec(source); match !== null && match.index < paragraphLimit; match = pattern.exec(source)) {
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

function parseTag(source: string, at: number): Tag | undefined {
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
  while (position - at < MAX_TAG_LENGTH) {
    SPACE.lastIndex = position
    position += SPACE.exec(source)![0].length
    if (source[position] === '>') return { kind: 'open', name, props, start: at, end: position + 1 }
    if (source.startsWith('/>', position)) return { kind: 'self', name, props, start: at, end: position + 2 }
    if (source[position] === '{') {
      const end = braceEnd(source, position)
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
      if (close === -1 || close - at > MAX_TAG_LENGTH) return undefined
      props[prop[0]] = source.slice(position + 1, close)
      position = close + 1
    } else if (quote === '{') {
      const end = braceEnd(source, position)
      if (end === undefined) return undefined
      const value = expressionValue(source.slice(position + 1, end - 1))
      if (value !== undefined) props[prop[0]] = value
      position = end
    } else return undefined
  }
  return undefined
}

/** After the `}` matching the `{` at `at`, skipping quoted strings; undefined if it does not close soon enough. */
function braceEnd(source: string, at: number): number | undefined {
  const limit = Math.min(source.length, at + MAX_TAG_LENGTH)
  let depth = 0
  BRACE_OR_QUOTE.lastIndex = at
  for (let match = BRACE_OR_QUOTE.exec(source); match !== null && match.index < limit; match = BRACE_OR_QUOTE.exec(source)) {
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

/** The literal a JSX expression prop holds (`{"text"}`, `{true}`); other expressions are not evaluated. */
function expressionValue(expression: string): string | boolean | undefined {
  const trimmed = expression.trim()
  if (trimmed === 'true' || trimmed === 'false') return trimmed === 'true'
  if (/^(["'`])[^]*\1$/.test(trimmed) && trimmed.length >= 2) return trimmed.slice(1, -1)
  if (/^\d+$/.test(trimmed)) return trimmed
  return undefined
}

// ---- Lowering ----

/**
 * Pairs each close tag with the nearest open tag of its name (recorded in `closeAt`); tags left unpaired,
 * and components nested deeper than MAX_NESTING, are dropped. Counting the open tags by name keeps a page
 * of stray closing tags linear.
 */
function pair(tags: Tag[]): void {
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

/** The smallest indentation of the non-blank lines that start inside [from, to). */
function minimumIndent(source: string, from: number, to: number): number {
  let minimum = Number.POSITIVE_INFINITY
  for (let line = source.indexOf('\n', from); line !== -1 && line < to; line = source.indexOf('\n', line + 1)) {
    let position = line + 1
    while (position < to && (source[position] === ' ' || source[position] === '\t')) position += 1
    if (position < to && source[position] !== '\n') minimum = Math.min(minimum, position - line - 1)
  }
  return Number.isFinite(minimum) ? minimum : 0
}

/** The source in [from, to) with up to `indent` leading spaces or tabs removed from each line that starts in it. */
function dedent(source: string, from: number, to: number, indent: number): string {
  if (indent === 0) return source.slice(from, to)
  let result = ''
  let position = from
  let lineStart = from === 0 || source[from - 1] === '\n'
  while (position < to) {
    for (let removed = 0; lineStart && removed < indent && (source[position] === ' ' || source[position] === '\t'); removed += 1) position += 1
    const newline = source.indexOf('\n', position)
    const end = newline === -1 || newline >= to ? to : newline + 1
    result += source.slice(position, end)
    position = end
    lineStart = true
  }
  return result
}

/**
 * The page's MDX lowered to Markdown with HTML. `placeholderPrefix` must be unguessable by the author
 * (the renderer passes a per-render nonce): icons are swapped in for the placeholders after sanitising.
 */
export function lowerMdx(source: string, placeholderPrefix: string): { markdown: string; icons: IconRequest[] } {
  const lowering: Lowering = { placeholderPrefix, icons: [] }
  const tags = scanTags(source)
  pair(tags)
  const indents: number[] = [0]
  const closers: string[] = []
  let markdown = ''
  let position = 0
  for (const tag of tags) {
    markdown += dedent(source, position, tag.start, indents.at(-1)!)
    position = tag.end
    const render = Object.hasOwn(COMPONENTS, tag.name) ? COMPONENTS[tag.name] : undefined
    if (tag.kind === 'open') {
      indents.push(minimumIndent(source, tag.end, tags[tag.closeAt!]!.start))
      const [open, close] = render === undefined ? ['', ''] : render(tag.props, lowering)
      closers.push(close)
      if (render !== undefined) markdown += `\n\n${open}\n\n`
    } else if (tag.kind === 'close') {
      indents.pop()
      const close = closers.pop()!
      if (render !== undefined) markdown += `\n\n${close}\n\n`
    } else if (tag.kind === 'self' && render !== undefined) {
      const [open, close] = render(tag.props, lowering)
      markdown += `\n\n${open}\n${close}\n\n`
    }
  }
  markdown += dedent(source, position, source.length, indents.at(-1)!)
  return { markdown, icons: lowering.icons }
}
