import { createHash } from 'node:crypto'
import { readdir, readFile } from 'node:fs/promises'
import { join } from 'node:path'
import { assetPathProblem, assetTypeOf } from '../docs-format/asset-files'

/**
 * The files half of `trellis docs push`: every image, video, font, data and OpenAPI file of the folder that
 * Mintlify would publish goes to `PUT /docs/assets/{path}`, unless the server already holds the same bytes
 * (compared by SHA-256 with `GET /docs/assets`, so an unchanged repository uploads nothing).
 */

/** A file of the folder to store, or to report as skipped. */
export type FilePlan = { files: { file: string; location: string }[]; skipped: { file: string; reason: string }[] }

/** Files a repository keeps for its tools, not its readers; never uploaded, whatever their extension. */
const TOOL_FILES = new Set(['docs.json', 'mint.json', 'package.json', 'package-lock.json', 'tsconfig.json'])
/** A folder of more files than this is not a docs repository; the walk stops rather than read a disk. */
const MAX_FILES = 50_000
const CONCURRENCY = 4
const UPLOAD_TIMEOUT_MS = 120_000

/**
 * The files of `root` to upload, sorted by path: those with an extension the store takes, outside dot-folders and
 * node_modules, not hidden, not the config and tool files. A name the store would refuse is reported, not sent.
 * Symbolic links are not followed.
 */
export async function planFiles(root: string): Promise<FilePlan> {
  const plan: FilePlan = { files: [], skipped: [] }
  const walk = async (folder: string, prefix: string): Promise<void> => {
    const entries = (await readdir(folder, { withFileTypes: true })).sort((a, b) => (a.name < b.name ? -1 : 1))
    for (const entry of entries) {
      if (plan.files.length >= MAX_FILES || entry.name.startsWith('.') || entry.name === 'node_modules') continue
      const file = prefix + entry.name
      if (entry.isDirectory()) await walk(join(folder, entry.name), `${file}/`)
      else if (entry.isFile() && assetTypeOf(file) !== undefined && !(prefix === '' && TOOL_FILES.has(file))) {
        const problem = assetPathProblem(file)
        if (problem === undefined) plan.files.push({ file, location: join(folder, entry.name) })
        else plan.skipped.push({ file, reason: problem })
      }
    }
  }
  await walk(root, '')
  return plan
}

export type FileOutcome = { file: string; ok: boolean; unchanged: boolean; line: string }

/**
 * Uploads the planned files that the server does not already hold byte for byte, four at a time, reporting each
 * (in path order) through `report`.
 */
export async function pushFiles(
  plan: FilePlan,
  base: string,
  token: string,
  report: (outcome: FileOutcome) => void,
): Promise<FileOutcome[]> {
  let stored: Map<string, string>
  try {
    stored = await storedHashes(base)
  } catch (error) {
    const outcome = { file: '(files)', ok: false, unchanged: false, line: `failed: ${(error as Error).message}` }
    report(outcome)
    return [outcome]
  }
  const outcomes: FileOutcome[] = []
  let next = 0
  let reported = 0
  const worker = async () => {
    while (next < plan.files.length) {
      const index = next++
      outcomes[index] = await pushOne(plan.files[index]!, stored, base, token)
      for (; outcomes[reported] !== undefined && reported < plan.files.length; reported++) report(outcomes[reported]!)
    }
  }
  await Promise.all(Array.from({ length: Math.min(CONCURRENCY, plan.files.length) }, worker))
  return outcomes
}

async function pushOne(
  { file, location }: { file: string; location: string },
  stored: Map<string, string>,
  base: string,
  token: string,
): Promise<FileOutcome> {
  const route = `/docs/assets/${file.split('/').map(encodeURIComponent).join('/')}`
  try {
    const bytes = await readFile(location)
    if (stored.get(file) === createHash('sha256').update(bytes).digest('hex'))
      return { file, ok: true, unchanged: true, line: 'unchanged' }
    const response = await fetch(`${base}${route}`, {
      method: 'PUT',
      headers: { authorization: `Bearer ${token}`, 'content-type': assetTypeOf(file)! },
      body: bytes,
      signal: AbortSignal.timeout(UPLOAD_TIMEOUT_MS),
    })
    const answer = (await response.json().catch(() => ({}))) as { message?: string; kind?: string }
    if (!response.ok)
      return {
        file,
        ok: false,
        unchanged: false,
        line: `failed (${response.status}): ${answer.message ?? response.statusText}`,
      }
    const what = answer.kind === 'openapi' ? ' as an OpenAPI document' : ''
    return {
      file,
      ok: true,
      unchanged: false,
      line: `${response.status === 201 ? 'created' : 'stored'}${what} (${route})`,
    }
  } catch (error) {
    const cause = (error as { cause?: { code?: string } }).cause?.code ?? (error as { code?: string }).code
    return {
      file,
      ok: false,
      unchanged: false,
      line: `failed: ${cause ?? (error as Error).message} (PUT ${base}${route})`,
    }
  }
}

/** Every stored file's SHA-256 by path, following the list's `Link: rel="next"` pages. */
async function storedHashes(base: string): Promise<Map<string, string>> {
  const hashes = new Map<string, string>()
  let url: string | undefined = `${base}/docs/assets?limit=1000`
  while (url !== undefined) {
    const response: Response = await fetch(url, { signal: AbortSignal.timeout(UPLOAD_TIMEOUT_MS) })
    if (!response.ok) throw new Error(`GET /docs/assets answered ${response.status}`)
    const { files } = (await response.json()) as { files: { path: string; sha256: string }[] }
    for (const file of files) hashes.set(file.path, file.sha256)
    const next = /<([^>]+)>;\s*rel="next"/.exec(response.headers.get('link') ?? '')?.[1]
    url = next === undefined ? undefined : new URL(next, base).href
  }
  return hashes
}
