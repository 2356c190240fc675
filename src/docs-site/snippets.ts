import { escapeHtml } from './html'
import { pagePathOf } from './links'
import { PageTooLarge } from './markdown'
import { pair, scanTags, type Props } from './mdx-tags'

/**
 * Mintlify's snippets, resolved when a page renders: `import Intro from '/snippets/intro.mdx'` (or a path relative to
 * the page) and then `<Intro word="hi" />` puts the snippet's text there, its `{word}` replaced by the prop; a
 * snippet's `export const name = "text"` can be imported by name and used as `{name}`; and `.jsx` files whose
 * components are plain markup (`export const Badge = ({ label }) => <span>{label}</span>`) are used the same way.
 * Nothing is evaluated: props are text, and what the snippet writes is still lowered and sanitised with the page.
 *
 * Snippets are stored like pages, by their path without `.mdx` (`snippets/intro`), a `.jsx` file with its extension
 * (`snippets/badge.jsx`); the site never shows them as pages.
 */

/** A snippet's text by its stored path (front matter removed), or undefined when there is none. */
export type SnippetLoader = (path: string) => Promise<string | undefined>

/** Snippets may import snippets: this deep, no deeper (Mintlify's own pages nest two or three). */
const MAX_SNIPPET_DEPTH = 8

/** Where snippets live; the site never serves a page under it. */
export const SNIPPET_FOLDER = 'snippets/'

type Template = { text: string; params: Map<string, string> }
type Imported = { kind: 'component'; template: Template } | { kind: 'value'; value: string }

const IMPORT =
  /^import[ \t]+([\w$]+|\{[^}]{0,2000}\}|[\w$]+[ \t]*,[ \t]*\{[^}]{0,2000}\})[ \t]+from[ \t]+(['"])([^'"\n]{1,300})\2;?[ \t]*$/gm
const EXPORT_VALUE = /^export[ \t]+const[ \t]+([\w$]+)[ \t]*=[ \t]*(['"`])([^\n]*?)\2;?[ \t]*$/gm
/** `export const Name = ({props}) =>` (groups 1, 2) or `export function Name({props}) { … return` (groups 3, 4). */
const EXPORT_COMPONENT = new RegExp(
  [
    String.raw`^export[ \t]+(?:`,
    String.raw`const[ \t]+([A-Z][\w$]*)[ \t]*=[ \t]*\(?[ \t]*(\{[^}]{0,2000}\})?[ \t]*\)?[ \t]*=>`,
    String.raw`|function[ \t]+([A-Z][\w$]*)[ \t]*\([ \t]*(\{[^}]{0,2000}\})?[ \t]*\)[ \t]*\{[^]{0,200}?return`,
    String.raw`)[ \t]*`,
  ].join(''),
  'gm',
)
const SCRIPT_FILE = /\.(jsx|tsx|js|ts)$/

/**
 * `body` with its snippet imports resolved, recursively. `from` is the page's path (relative imports resolve against
 * its folder). Throws PageTooLarge past `maxCharacters` of expanded text or MAX_SNIPPET_DEPTH.
 */
export async function expandSnippets(
  body: string,
  from: string,
  load: SnippetLoader,
  maxCharacters: number,
): Promise<string> {
  const budget = { left: maxCharacters }
  // Each snippet is read once per expansion: imports are free of the size budget until one expands, so 100 imports
  // of a snippet that imports an empty one 1,000 times were 100,100 reads (database queries) for one page.
  const reads = new Map<string, Promise<string | undefined>>()
  const once: SnippetLoader = (path) => {
    let read = reads.get(path)
    if (read === undefined) reads.set(path, (read = load(path)))
    return read
  }
  return expand(body, from, once, budget, 0)
}

async function expand(
  body: string,
  from: string,
  load: SnippetLoader,
  budget: { left: number },
  depth: number,
): Promise<string> {
  const imports = await importsOf(body, from, load, budget, depth)
  if (imports.size === 0) return body
  const values = new Map<string, string>()
  for (const [name, imported] of imports) if (imported.kind === 'value') values.set(name, imported.value)
  const text = substitute(body, values)
  const tags = scanTags(text)
  pair(tags)
  let result = ''
  let position = 0
  for (const tag of tags) {
    const imported = imports.get(tag.name)
    if (tag.start < position || imported?.kind !== 'component' || (tag.kind !== 'open' && tag.kind !== 'self')) continue
    const end = tag.kind === 'open' ? tags[tag.closeAt!]!.end : tag.end
    const children = tag.kind === 'open' ? text.slice(tag.end, tags[tag.closeAt!]!.start) : ''
    const filled = fill(imported.template, tag.props, children)
    budget.left -= filled.length
    if (budget.left < 0) throw new PageTooLarge('its snippets expand past the size a page may have')
    result += `${text.slice(position, tag.start)}${filled}`
    position = end
  }
  return result + text.slice(position)
}

/** The names a text imports from snippets, each with its template (components) or value (exported constants). */
async function importsOf(
  body: string,
  from: string,
  load: SnippetLoader,
  budget: { left: number },
  depth: number,
): Promise<Map<string, Imported>> {
  const imports = new Map<string, Imported>()
  for (const match of body.matchAll(IMPORT)) {
    const path = snippetPath(match[3]!, from)
    if (path === undefined) continue
    if (depth >= MAX_SNIPPET_DEPTH)
      throw new PageTooLarge(`its snippets import snippets more than ${MAX_SNIPPET_DEPTH} deep`)
    const source = await load(path)
    if (source === undefined) continue
    const [defaultName, named] = importedNames(match[1]!)
    if (SCRIPT_FILE.test(path)) {
      const components = jsxComponents(source)
      for (const [local, exported] of named) {
        const template = components.get(exported)
        if (template !== undefined) imports.set(local, { kind: 'component', template })
      }
      continue
    }
    const values = new Map([...source.matchAll(EXPORT_VALUE)].map((value) => [value[1]!, value[3]!]))
    for (const [local, exported] of named) {
      const value = values.get(exported)
      if (value !== undefined) imports.set(local, { kind: 'value', value })
    }
    if (defaultName !== undefined) {
      budget.left -= source.length
      if (budget.left < 0) throw new PageTooLarge('its snippets expand past the size a page may have')
      const text = (await expand(withoutExports(source), path, load, budget, depth + 1)).replace(IMPORT, '')
      imports.set(defaultName, { kind: 'component', template: { text, params: new Map() } })
    }
  }
  return imports
}

/** `X`, `{ A, B as C }` or `X, { A }` → the default name and [local, exported] pairs. */
function importedNames(clause: string): [string | undefined, [string, string][]] {
  const brace = clause.indexOf('{')
  const head = (brace === -1 ? clause : clause.slice(0, brace)).replace(',', '').trim()
  const named: [string, string][] = []
  if (brace !== -1) {
    for (const part of clause.slice(brace + 1, clause.lastIndexOf('}')).split(',')) {
      const [exported, local] = part.trim().split(/\s+as\s+/)
      if (exported) named.push([local?.trim() || exported, exported])
    }
  }
  return [head === '' ? undefined : head, named]
}

/** The stored path an import names, if it is a snippet: `/snippets/a.mdx` → `snippets/a`; relative to `from`. */
function snippetPath(specifier: string, from: string): string | undefined {
  if (!specifier.startsWith('/') && !specifier.startsWith('.')) return undefined
  const folder = from.includes('/') ? from.slice(0, from.lastIndexOf('/') + 1) : ''
  const parts: string[] = []
  for (const part of (specifier.startsWith('/') ? specifier : folder + specifier).split('/')) {
    if (part === '..') parts.pop()
    else if (part !== '.' && part !== '') parts.push(part)
  }
  const path = pagePathOf(parts.join('/'))
  return path === '' ? undefined : path
}

/** A snippet's own ESM lines go: the page's lowering drops only blocks that start after a blank line. */
function withoutExports(source: string): string {
  return source.replace(EXPORT_VALUE, '')
}

/** A template's text with its props: `attr={name}` as a quoted attribute, `{name}` as text, `{children}`. */
function fill(template: Template, props: Props, children: string): string {
  const values = new Map(template.params)
  for (const [name, value] of Object.entries(props)) values.set(name, value === true ? 'true' : String(value))
  values.set('children', children)
  return substitute(template.text, values)
}

const EXPRESSION = /(=)?\{\s*([\w$]+)\s*\}/g

/** Each `{name}` (and `attr={name}`) with a value replaced, in one pass over the text: linear in text and values. */
function substitute(text: string, values: Map<string, string>): string {
  if (values.size === 0) return text
  return text.replace(EXPRESSION, (whole, attribute: string | undefined, name: string) => {
    const value = values.get(name)
    if (value === undefined) return whole
    return attribute === undefined ? value : `="${escapeHtml(value)}"`
  })
}

/**
 * The components of a `.jsx` snippet that are plain markup: `export const Name = ({ a, b = "x" }) => (<div>…</div>)`
 * or `export function Name({ a }) { return <div>…</div> }`. Each body is the JSX up to its balancing parenthesis, or
 * the element that follows the arrow.
 */
function jsxComponents(source: string): Map<string, Template> {
  const components = new Map<string, Template>()
  for (const match of source.matchAll(EXPORT_COMPONENT)) {
    const name = match[1] ?? match[3]!
    const params = parameters(match[2] ?? match[4])
    const body = jsxBody(source, match.index + match[0].length)
    if (body !== undefined) components.set(name, { text: body.replace(/\bclassName=/g, 'class='), params })
  }
  return components
}

/** `{ a, b = "x" }` → a → '', b → 'x'. */
function parameters(destructuring: string | undefined): Map<string, string> {
  const params = new Map<string, string>()
  if (destructuring === undefined) return params
  for (const part of destructuring.slice(1, -1).split(',')) {
    const [name, fallback] = part.split('=').map((piece) => piece.trim())
    if (name && /^[\w$]+$/.test(name)) params.set(name, fallback?.replace(/^(['"`])(.*)\1$/, '$2') ?? '')
  }
  return params
}

function jsxBody(source: string, at: number): string | undefined {
  let start = at
  while (/\s/.test(source[start] ?? '')) start += 1
  // `=> { return (…) }`: a block whose first statement returns the markup.
  if (source[start] === '{') {
    const returned = /^\{\s*return\s*/.exec(source.slice(start, start + 200))
    if (returned === null) return undefined
    start += returned[0].length
  }
  if (source[start] === '(') {
    let depth = 0
    for (let index = start; index < source.length; index += 1) {
      if (source[index] === '(') depth += 1
      else if (source[index] === ')' && --depth === 0) return source.slice(start + 1, index).trim()
    }
    return undefined
  }
  if (source[start] !== '<') return undefined
  const end = source.slice(start).search(/\n\s*(?:\n|export\b|\}|$)/)
  return source
    .slice(start, end === -1 ? undefined : start + end)
    .trim()
    .replace(/;$/, '')
}
