/**
 * Page paths, as docs.json navigation names pages: `plants/overview` for the file
 * `plants/overview.mdx`. The site serves a page at `/docs/{path}`.
 */

export const PAGE_PATH_MAX_LENGTH = 200

/**
 * Where the site has other things: `/docs/pages/…` is this API, `/docs/_assets/…` and `/docs/_files/…` the site's own
 * files; a page there would be shadowed.
 */
const RESERVED_FIRST_SEGMENTS: Record<string, string> = {
  pages: 'the pages API',
  _assets: "the site's stylesheet and script",
  _files: "the site's built-in images",
}

/**
 * What a segment may not hold: control characters, and what a URL or a Markdown link would read as something else
 * (`?` a query, `#` a fragment, `%` an escape, `\` a separator). Anything else Mintlify publishes is allowed (`Q&A`,
 * `v2: migration`, `getting started`, `café`): the site links such pages percent-encoded.
 */
const FORBIDDEN = /[\u0000-\u001F\u007F\\?#%"<>|*]/
const FORBIDDEN_LIST = 'control characters or any of \\ ? # % " < > | *'

/** Whole paths the site answers itself (its search API and its files for machines); a page there would be shadowed. */
const RESERVED_PATHS: Record<string, string> = {
  search: "the site's search API",
  'llms.txt': "the site's llms.txt",
  'llms-full.txt': "the site's llms-full.txt",
  'sitemap.xml': "the site's sitemap",
  'robots.txt': "the site's robots.txt",
}
const MARKDOWN_EXTENSION = /\.mdx?$/i

/**
 * Why `path` is not a page path, in one sentence naming the rule it breaks; undefined when it is one.
 *
 * @example
 * pagePathProblem('plants/overview') // undefined
 * pagePathProblem('plants/overview.mdx') // 'page path "plants/overview.mdx" ends in .mdx; …'
 */
export function pagePathProblem(path: string): string | undefined {
  const quoted = JSON.stringify(path)
  if (path === '') return 'page path is empty; name a page as docs.json navigation does, e.g. plants/overview'
  if (path.length > PAGE_PATH_MAX_LENGTH)
    return `page path is ${path.length} characters long; at most ${PAGE_PATH_MAX_LENGTH} are allowed`
  if (path.startsWith('/'))
    return `page path ${quoted} starts with "/"; name it relative to the docs root, e.g. plants/overview`
  if (path.endsWith('/')) return `page path ${quoted} ends with "/"; a page is a file, not a folder`
  const extension = MARKDOWN_EXTENSION.exec(path)?.[0]
  if (extension !== undefined) {
    return `page path ${quoted} ends in ${extension}; name the page without its extension, as docs.json navigation does (${path.slice(0, -extension.length)})`
  }
  const segments = path.split('/')
  for (const segment of segments) {
    if (segment === '') return `page path ${quoted} has an empty segment ("//")`
    if (segment === '.' || segment === '..')
      return `page path ${quoted} has a "${segment}" segment; relative segments are not allowed`
    const character = FORBIDDEN.exec(segment)?.[0]
    if (character !== undefined)
      return `page path ${quoted} contains ${JSON.stringify(character)}; segments may not hold ${FORBIDDEN_LIST}`
    if (segment.trim() !== segment)
      return `page path ${quoted} has a segment that starts or ends with blank space ("${segment}")`
  }
  const reserved = Object.hasOwn(RESERVED_FIRST_SEGMENTS, segments[0]!)
    ? RESERVED_FIRST_SEGMENTS[segments[0]!]
    : undefined
  if (reserved !== undefined) {
    return `page path ${quoted} begins with the segment "${segments[0]}", which is reserved: /docs/${segments[0]} is ${reserved}, so the site could not show it`
  }
  const answered = Object.hasOwn(RESERVED_PATHS, path) ? RESERVED_PATHS[path] : undefined
  if (answered !== undefined)
    return `page path ${quoted} is reserved: /docs/${path} is ${answered}, so the site could not show it`
  return undefined
}
