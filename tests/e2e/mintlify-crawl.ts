import { readdir } from 'node:fs/promises'
import { join } from 'node:path'

/**
 * A bounded crawler for the Trellis docs site, for tests/e2e/mintlify-repositories.test.ts: it starts at `/docs/`,
 * follows every link under `/docs/` it finds and fetches every image under `/docs/`, and records what broke.
 */

const REPO = join(import.meta.dir, '../..')
/** The crawl stops after this many HTML pages, so a site that links to itself forever cannot hang the test. */
export const MAX_PAGES = 60
const MAX_REDIRECTS = 5

/** Runs the real CLI (`bun src/cli/main.ts …`) as a child process; async, so the in-process server keeps answering. */
export async function cli(args: string[], env: Record<string, string> = {}) {
  const child = Bun.spawn(['bun', 'src/cli/main.ts', ...args], {
    cwd: REPO,
    stdout: 'pipe',
    stderr: 'pipe',
    env: { ...process.env, ...env },
  })
  const [stdout, stderr, code] = await Promise.all([
    new Response(child.stdout).text(),
    new Response(child.stderr).text(),
    child.exited,
  ])
  return { code, stdout, stderr }
}

/** The pages a Mintlify repository holds: its .md/.mdx files outside `snippets/`, as site paths. */
export async function fixturePages(dir: string): Promise<string[]> {
  const files = (await readdir(dir, { recursive: true })) as string[]
  return files
    .map((file) => file.split('\\').join('/'))
    .filter((file) => /\.mdx?$/.test(file) && !file.startsWith('snippets/') && !/^[A-Z]+\.md$/.test(file))
    .map((file) => file.replace(/\.mdx?$/, ''))
    .sort()
}

export interface Fetched {
  status: number
  contentType: string
  body: string
  /** The redirects followed, `from → to`. */
  hops: string[]
}

/** GET with redirects followed by hand (at most a few), so a redirect loop is an error rather than a hang. */
export async function get(origin: string, path: string): Promise<Fetched> {
  const hops: string[] = []
  let url = new URL(path, origin)
  for (let hop = 0; ; hop++) {
    const response = await fetch(url, { redirect: 'manual' })
    const location = response.headers.get('location')
    if (response.status >= 300 && response.status < 400 && location && hop < MAX_REDIRECTS) {
      await response.body?.cancel()
      const next = new URL(location, url)
      hops.push(`${url.pathname} → ${next.pathname}`)
      url = next
      continue
    }
    const contentType = response.headers.get('content-type') ?? ''
    const body = contentType.startsWith('image/') ? (await response.arrayBuffer(), '') : await response.text()
    return { status: response.status, contentType, body, hops }
  }
}

const decode = (value: string) => value.replaceAll('&amp;', '&').replaceAll('&quot;', '"').replaceAll('&#39;', "'")

/** The `href`s of `<a>` and the `src`s of `<img>` in an HTML page, entities decoded. */
function linksOf(html: string) {
  const hrefs = [...html.matchAll(/<a\b[^>]*?\bhref="([^"]*)"/g)].map((match) => decode(match[1]!))
  const images = [...html.matchAll(/<img\b[^>]*?\bsrc="([^"]*)"/g)].map((match) => decode(match[1]!))
  return { hrefs, images }
}

/** A link's path without its query and fragment; `undefined` for a link off the site or to the page itself. */
function sitePath(href: string): string | undefined {
  if (!href.startsWith('/') || href.startsWith('//')) return undefined
  const path = href.replace(/[?#].*$/, '')
  return path === '' ? undefined : path
}

export interface Crawl {
  /** Every HTML page fetched, path → HTML. */
  pages: Map<string, string>
  /** `page: link → status` for each link under /docs/ that did not end in a 200. */
  broken: string[]
  /** `page: src → status content-type` for each image under /docs/ that is not a 200 image. */
  badImages: string[]
  /** Links to a root path (not under /docs/), `page: href`; the test decides which of them are wrong. */
  outside: string[]
  /** True when MAX_PAGES stopped the crawl. */
  truncated: boolean
}

/** Crawls the site from `/docs/`. Each distinct link and image is fetched once. */
export async function crawl(origin: string): Promise<Crawl> {
  const result: Crawl = { pages: new Map(), broken: [], badImages: [], outside: [], truncated: false }
  const seen = new Map<string, Fetched>()
  const fetchOnce = async (path: string) => {
    let fetched = seen.get(path)
    if (!fetched) seen.set(path, (fetched = await get(origin, path)))
    return fetched
  }
  const queue = ['/docs/']
  const queued = new Set(queue)
  while (queue.length > 0) {
    if (result.pages.size >= MAX_PAGES) {
      result.truncated = true
      break
    }
    const page = queue.shift()!
    const fetched = await fetchOnce(page)
    if (!fetched.contentType.startsWith('text/html')) continue
    result.pages.set(page, fetched.body)
    const { hrefs, images } = linksOf(fetched.body)
    for (const href of hrefs) {
      const path = sitePath(href)
      if (!path) continue
      if (!path.startsWith('/docs/') && path !== '/docs') {
        result.outside.push(`${page}: ${href}`)
        continue
      }
      const target = await fetchOnce(path)
      if (target.status !== 200) result.broken.push(`${page}: ${href} → ${target.status}`)
      else if (!queued.has(path)) {
        queued.add(path)
        queue.push(path)
      }
    }
    for (const src of images) {
      const path = sitePath(src)
      if (!path) continue
      const image = await fetchOnce(path)
      if (image.status !== 200 || !image.contentType.startsWith('image/')) {
        result.badImages.push(`${page}: ${src} → ${image.status} ${image.contentType}`)
      }
    }
  }
  return result
}
