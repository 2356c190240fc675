import { COMPONENTS, type IconRequest, type Lowering } from './components'
import { pair, scanTags } from './mdx-tags'

/**
 * The MDX of Mintlify pages, lowered to the Markdown-with-HTML that markdown-it reads. Pages are not
 * compiled as MDX (no JavaScript runs): top-level `import`/`export` blocks and `{/* comments *\/}` are
 * dropped, Mintlify's components become plain HTML (components.ts), and any other component tag is dropped with
 * its content kept. Everything produced here still goes
 * through the sanitiser, so this pass decides layout, never safety.
 *
 * Component content is Markdown. Each component's tags are put on lines of their own between blank
 * lines, and its content is dedented: MDX pages indent content inside components, and four spaces
 * would otherwise make a fence or a list inert.
 */

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

/** A block component's markup on lines of its own between blank lines; an inline one's as it is. */
function around(rendered: { open: string; close: string; inline?: boolean }, side: 'open' | 'close'): string {
  const markup = rendered[side]
  if (rendered.inline === true) return markup
  return markup === '' ? '' : `\n\n${markup}\n\n`
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
      const rendered = render === undefined ? { open: '', close: '', inline: true } : render(tag.props, lowering)
      // An inline component's content stays in its paragraph: it is not dedented as a block of its own.
      const inline = rendered.inline === true && render !== undefined
      indents.push(inline ? indents.at(-1)! : minimumIndent(source, tag.end, tags[tag.closeAt!]!.start))
      closers.push(around(rendered, 'close'))
      markdown += around(rendered, 'open')
    } else if (tag.kind === 'close') {
      indents.pop()
      markdown += closers.pop()!
    } else if (tag.kind === 'self' && render !== undefined) {
      const rendered = render(tag.props, lowering)
      markdown += rendered.inline ? rendered.open + rendered.close : `\n\n${rendered.open}\n${rendered.close}\n\n`
    }
  }
  markdown += dedent(source, position, source.length, indents.at(-1)!)
  return { markdown, icons: lowering.icons }
}
