import { escapeHtml } from './html'
import { pair, type Props, scanTags } from './mdx-tags'

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

/** An icon the lowered HTML asks for; its placeholder is the prefix followed by its index in the list. */
export interface IconRequest {
  name: string
  iconType?: string
}

interface Lowering {
  placeholderPrefix: string
  icons: IconRequest[]
}

const CALLOUTS: Record<string, string> = {
  Note: 'Note',
  Tip: 'Tip',
  Info: 'Info',
  Warning: 'Warning',
  Check: 'Check',
  Danger: 'Danger',
}

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
    const head = [
      icon === '' ? '' : `<span class="card-icon">${icon}</span>`,
      title === undefined ? '' : `<strong class="card-title">${escapeHtml(title)}</strong>`,
    ].join('')
    return href === undefined
      ? [`<div class="card">\n${head}`, '</div>']
      : [`<a class="card" href="${escapeHtml(href)}">\n${head}`, '</a>']
  },
  CardGroup: (props) => [`<div class="card-group${columnsClass(props)}">`, '</div>'],
  Columns: (props) => [`<div class="card-group${columnsClass(props)}">`, '</div>'],
  Steps: () => ['<ol class="steps">', '</ol>'],
  Step: (props) => {
    const title = text(props.title)
    return [
      `<li class="steps-item">${title === undefined ? '' : `\n<strong class="steps-title">${escapeHtml(title)}</strong>`}`,
      '</li>',
    ]
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
    for (
      let removed = 0;
      lineStart && removed < indent && (source[position] === ' ' || source[position] === '\t');
      removed += 1
    )
      position += 1
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
