import { readdir, readFile } from 'node:fs/promises'
import { join, relative, sep } from 'node:path'
import type { Navigation } from '../docs-format/navigation/model'
import { pagePathOf } from '../docs-format/navigation/paths'
import { MintIgnore } from './mintignore'
import { pagePathProblem } from './page-path'

/** One file to upload: where it is, and what it becomes on the server. */
export type Upload = {
  /** Its path under the pushed folder, with `/` separators, as it is reported. */
  file: string
  /** Its path on disk. */
  location: string
  /** `docs.json` (or `mint.json`), or a page named as navigation names it. */
  target: { kind: 'config' } | { kind: 'page'; path: string }
}

/** A file that is not uploaded as a page, and why; it is reported. */
type Skipped = { file: string; reason: string }

/** A Markdown or .jsx file under `snippets/`: imported by pages, never a page itself. */
type SnippetFile = { file: string; location: string }

export type PushPlan = { uploads: Upload[]; skipped: Skipped[]; snippets: SnippetFile[] }

const MARKDOWN = /\.mdx?$/i
const JSX = /\.jsx$/i

/** Folders that never hold pages: dependencies, and dot-folders (.git, .github, .vscode, .mintlify…). */
const skipsFolder = (name: string) => name === 'node_modules' || name.startsWith('.')

/** Files about the repository, not pages of the site: published only when navigation names them. */
const REPOSITORY_FILE = /^(?:readme|agents|claude|contributing|code_of_conduct|security|license|changelog)$/i

/** At most this many pages are followed through links, so a folder of links cannot make the plan unbounded. */
const LINKED_PAGES_LIMIT = 10_000

/** The docs.json at the root of a folder: docs.json, else mint.json; undefined when neither. */
export async function configFileOf(root: string): Promise<Upload | undefined> {
  const names = new Set(await readdir(root))
  const file = ['docs.json', 'mint.json'].find((name) => names.has(name))
  return file === undefined ? undefined : { file, location: join(root, file), target: { kind: 'config' } }
}

/** Whether a file (its path under the pushed folder) is a snippet: under `snippets/`, as Mintlify has it. */
export function isSnippetFile(file: string): boolean {
  return file.startsWith('snippets/')
}

/**
 * The pages `trellis docs push` uploads from a folder laid out like a Mintlify docs repository, as Mintlify
 * would publish them: with a docs.json, the pages its navigation names and the pages those link to (`/path`
 * or a path relative to the page), followed page by page; without one, every Markdown file. Files under
 * `snippets/` are never pages (they are listed in `snippets`), nor are README, AGENTS, CLAUDE, CONTRIBUTING …
 * unless navigation names them, nor what `.mintignore` leaves out. A page is the file's path without its extension (`plants/overview.mdx` →
 * `plants/overview`); results are sorted by file path. Symbolic links are not followed.
 */
export async function planPush(root: string, navigation?: Navigation): Promise<PushPlan> {
  const snippets: SnippetFile[] = []
  const skipped: Skipped[] = []
  /** Page path → its file, for the Markdown files a page could be. */
  const byPath = new Map<string, { file: string; location: string }>()
  const ignore = new MintIgnore(await readFile(join(root, '.mintignore'), 'utf8').catch(() => ''))
  for (const location of (await markdownFiles(root)).sort()) {
    const file = relative(root, location).split(sep).join('/')
    if (ignore.ignores(file)) continue
    if (isSnippetFile(file)) snippets.push({ file, location })
    else if (MARKDOWN.test(file)) byPath.set(file.replace(MARKDOWN, ''), { file, location })
  }
  const chosen = navigation === undefined ? everyPage(byPath) : await publishedPages(byPath, navigation)
  const uploads: Upload[] = []
  for (const [path, { file, location }] of [...chosen].sort((a, b) => (a[1].file < b[1].file ? -1 : 1))) {
    const problem = pagePathProblem(path)
    if (problem === undefined) uploads.push({ file, location, target: { kind: 'page', path } })
    else skipped.push({ file, reason: problem })
  }
  return { uploads, skipped, snippets }
}

type Files = Map<string, { file: string; location: string }>

function everyPage(byPath: Files): Files {
  return new Map([...byPath].filter(([path]) => !REPOSITORY_FILE.test(path.slice(path.lastIndexOf('/') + 1))))
}

async function publishedPages(byPath: Files, navigation: Navigation): Promise<Files> {
  const chosen: Files = new Map()
  const queue: string[] = []
  const take = (path: string) => {
    const found = byPath.get(path) ?? byPath.get(`${path}/index`)
    const key = byPath.has(path) ? path : `${path}/index`
    if (found === undefined || chosen.has(key) || chosen.size >= LINKED_PAGES_LIMIT) return
    chosen.set(key, found)
    queue.push(key)
  }
  for (const path of navigation.pages) take(path)
  while (queue.length > 0) {
    const path = queue.shift()!
    const text = await readFile(chosen.get(path)!.location, 'utf8')
    for (const linked of linkedPages(text, path)) {
      if (!REPOSITORY_FILE.test(linked.slice(linked.lastIndexOf('/') + 1))) take(linked)
    }
  }
  return chosen
}

/** Markdown links and `href`s of a page, as page paths: `/guides/x`, `../x` and `x.mdx` resolved against it. */
function* linkedPages(text: string, from: string): Generator<string> {
  const pattern = /\]\(\s*<?([^)\s>]+)|\bhref=["']([^"']+)["']/g
  for (const match of text.matchAll(pattern)) {
    const target = (match[1] ?? match[2] ?? '').split(/[#?]/)[0]!
    if (target === '' || /^[a-zA-Z][a-zA-Z0-9+.-]*:/.test(target) || target.startsWith('//')) continue
    const segments = target.startsWith('/') ? [] : from.split('/').slice(0, -1)
    for (const segment of target.split('/')) {
      if (segment === '..') segments.pop()
      else if (segment !== '' && segment !== '.') segments.push(segment)
    }
    const path = pagePathOf(segments.join('/'))
    if (path !== '') yield path
  }
}

async function markdownFiles(folder: string): Promise<string[]> {
  const found: string[] = []
  for (const entry of await readdir(folder, { withFileTypes: true })) {
    const location = join(folder, entry.name)
    if (entry.isDirectory() && !skipsFolder(entry.name)) found.push(...(await markdownFiles(location)))
    // A .jsx file counts only under snippets/ (planPush keeps it there): a snippet of components.
    else if (entry.isFile() && (MARKDOWN.test(entry.name) || JSX.test(entry.name))) found.push(location)
  }
  return found
}
