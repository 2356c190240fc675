import { readdir } from 'node:fs/promises'
import { join, relative, sep } from 'node:path'
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

/** A Markdown file whose name is not a page path; it is reported, not uploaded. */
export type Skipped = { file: string; reason: string }

const MARKDOWN = /\.mdx?$/i

/** Folders that never hold pages: dependencies, and dot-folders (.git, .github, .vscode, .mintlify…). */
const skipsFolder = (name: string) => name === 'node_modules' || name.startsWith('.')

/**
 * What `trellis docs push` uploads from a folder laid out like a Mintlify docs repository: the
 * `docs.json` at its root (`mint.json` when there is no docs.json), then every `.md` and `.mdx`
 * file below it as the page named by its path without the extension (`plants/overview.mdx` →
 * `plants/overview`), sorted by path. Symbolic links are not followed.
 */
export async function planPush(root: string): Promise<{ uploads: Upload[]; skipped: Skipped[] }> {
  const rootNames = new Set(await readdir(root))
  const config = ['docs.json', 'mint.json'].find((name) => rootNames.has(name))
  const uploads: Upload[] =
    config === undefined ? [] : [{ file: config, location: join(root, config), target: { kind: 'config' } }]
  const skipped: Skipped[] = []
  for (const location of (await markdownFiles(root)).sort()) {
    const file = relative(root, location).split(sep).join('/')
    const path = file.replace(MARKDOWN, '')
    const problem = pagePathProblem(path)
    if (problem === undefined) uploads.push({ file, location, target: { kind: 'page', path } })
    else skipped.push({ file, reason: problem })
  }
  return { uploads, skipped }
}

async function markdownFiles(folder: string): Promise<string[]> {
  const found: string[] = []
  for (const entry of await readdir(folder, { withFileTypes: true })) {
    const location = join(folder, entry.name)
    if (entry.isDirectory() && !skipsFolder(entry.name)) found.push(...(await markdownFiles(location)))
    else if (entry.isFile() && MARKDOWN.test(entry.name)) found.push(location)
  }
  return found
}
