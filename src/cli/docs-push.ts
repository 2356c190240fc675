import { readFile, stat } from 'node:fs/promises'
import { parseArgs } from 'node:util'
import { configFileOf, planPush, type Upload } from '../docs-pages/push-plan'
import { navigationOf } from '../docs-format/navigation/build'
import type { Navigation } from '../docs-format/navigation/model'
import { IncludeError } from '../docs-format/includes'
import { readDocsConfigFile } from './docs-config-file'
import { planFiles, pushFiles } from './docs-push-files'

/** Where the command writes, and the environment it reads; tests pass their own. */
export type PushIo = {
  stdout: (text: string) => void
  stderr: (text: string) => void
  env: Record<string, string | undefined>
}

const PUSH_USAGE = 'usage: trellis docs push <dir> [--url URL] [--token TOKEN]'

const DEFAULT_URL = 'http://127.0.0.1:3000'
/** Uploads in flight at once: enough to hide the round trips, few enough not to crowd the server. */
const CONCURRENCY = 4
/** One upload's limit; a page is at most 1 MiB, so a server that takes longer is not answering. */
const UPLOAD_TIMEOUT_MS = 30_000

const PROCESS_IO: PushIo = {
  stdout: (text) => void process.stdout.write(text),
  stderr: (text) => void process.stderr.write(text),
  env: process.env,
}

type Outcome = { ok: true; line: string; unchanged: boolean } | { ok: false; line: string }

/**
 * `trellis docs push <dir> [--url URL] [--token TOKEN]`: uploads a docs folder to a running server.
 * `docs.json` (or `mint.json`), with its `$ref` includes resolved, goes first to `PUT /docs.json`; when the
 * server refuses it, the command prints why and stops, uploading nothing else. Then the pages Mintlify would
 * publish (see planPush) go to `PUT /docs/pages/<path>`, four at a time. Prints one line per file, in path
 * order, then a summary. The URL and token default to `TRELLIS_URL` (else http://127.0.0.1:3000) and
 * `TRELLIS_TOKEN`; the token needs the docs:write scope.
 *
 * @returns the exit code: 0 when every upload succeeded (files skipped for their names are reported,
 *   not failures), 1 when any failed, 2 on a bad invocation (no folder, no token, nothing to push).
 */
export async function runDocsPush(args: string[], io: PushIo = PROCESS_IO): Promise<number> {
  let parsed
  try {
    parsed = parseArgs({
      args,
      options: { url: { type: 'string' }, token: { type: 'string' }, help: { type: 'boolean', short: 'h' } },
      allowPositionals: true,
      strict: true,
    })
  } catch (error) {
    return badInvocation(io, (error as Error).message.split('\n')[0]!)
  }
  const { values, positionals } = parsed
  if (values.help) {
    io.stdout(`${PUSH_USAGE}\n`)
    return 0
  }
  if (positionals.length !== 1)
    return badInvocation(io, positionals.length === 0 ? 'missing the folder to push' : 'push one folder at a time')
  const root = positionals[0]!
  const base = (values.url ?? io.env.TRELLIS_URL ?? DEFAULT_URL).replace(/\/+$/, '')
  if (!/^https?:\/\/[^/]/.test(base))
    return badInvocation(io, `--url must be an http:// or https:// URL, got "${base}"`)
  const token = values.token ?? io.env.TRELLIS_TOKEN
  if (token === undefined || token === '')
    return badInvocation(io, 'needs a token with the docs:write scope: --token TOKEN or TRELLIS_TOKEN')
  if (!(await isFolder(root))) return badInvocation(io, `${root} is not a folder`)

  const config = await configFileOf(root)
  let navigation: Navigation | undefined
  let configOutcome: Outcome | undefined
  if (config !== undefined) {
    const pushed = await pushConfig(config, base, token)
    io.stdout(`${config.file}: ${pushed.outcome.line}\n`)
    if (!pushed.outcome.ok) {
      io.stdout(`pushed nothing else: ${config.file} was refused, and the pages depend on its navigation\n`)
      return 1
    }
    configOutcome = pushed.outcome
    navigation = pushed.navigation
  }
  const plan = await planPush(root, navigation)
  const { skipped } = plan
  if (config === undefined && plan.uploads.length === 0 && skipped.length === 0)
    return badInvocation(io, `found nothing to push under ${root}: no docs.json, mint.json, .md or .mdx file`)
  for (const { file, reason } of skipped) io.stdout(`${file}: skipped: ${reason}\n`)
  // Snippets are stored like pages, by their path without the extension (`snippets/intro`): the site resolves a
  // page's imports from them (src/docs-site/snippets.ts) and never shows them as pages.
  const snippetUploads: Upload[] = plan.snippets.map(({ file, location }) => ({
    file,
    location,
    target: { kind: 'page', path: file.replace(/\.mdx?$/i, '') },
  }))
  const uploads = [...plan.uploads, ...snippetUploads].sort((a, b) => (a.file < b.file ? -1 : 1))
  const pageOutcomes = await inOrder(
    uploads,
    CONCURRENCY,
    (upload) => send(upload, base, token),
    (upload, outcome) => io.stdout(`${upload.file}: ${outcome.line}\n`),
  )
  const outcomes = configOutcome === undefined ? pageOutcomes : [configOutcome, ...pageOutcomes]
  const failed = outcomes.filter((outcome) => !outcome.ok).length
  const unchanged = outcomes.filter((outcome) => outcome.ok && outcome.unchanged).length
  const stored = outcomes.length - failed - unchanged
  // The repository's images, fonts and OpenAPI files (src/cli/docs-push-files.ts).
  const filesFailed = await pushRepositoryFiles(root, base, token, io)
  io.stdout(
    `pushed ${root} to ${base}: ${stored} stored, ${unchanged} unchanged, ${skipped.length} skipped, ${failed} failed\n`,
  )
  return failed === 0 && filesFailed === 0 ? 0 : 1
}

/**
 * Reads docs.json with its includes resolved and stores it; what the server answered, and the navigation of
 * the stored document (which decides the pages).
 */
async function pushConfig(
  config: Upload,
  base: string,
  token: string,
): Promise<{ outcome: Outcome; navigation?: Navigation }> {
  let text: string
  try {
    text = (await readDocsConfigFile(config.location)).text
  } catch (error) {
    const reason = error instanceof IncludeError ? error.message : `cannot read: ${(error as Error).message}`
    return { outcome: { ok: false, line: `failed: ${reason}` } }
  }
  const outcome = await send(config, base, token, text)
  if (!outcome.ok) return { outcome }
  return { outcome, navigation: navigationOf(JSON.parse(text) as Record<string, unknown>) }
}

/** One file's PUT (its own bytes, or `body`), and what became of it in a few words. */
async function send(upload: Upload, base: string, token: string, body?: string): Promise<Outcome> {
  const config = upload.target.kind === 'config'
  const route =
    upload.target.kind === 'config'
      ? '/docs.json'
      : `/docs/pages/${upload.target.path.split('/').map(encodeURIComponent).join('/')}`
  let response: Response
  try {
    response = await fetch(`${base}${route}`, {
      method: 'PUT',
      headers: {
        authorization: `Bearer ${token}`,
        'content-type': config ? 'application/json' : 'text/markdown; charset=utf-8',
      },
      body: body ?? (await readFile(upload.location)),
      signal: AbortSignal.timeout(UPLOAD_TIMEOUT_MS),
    })
  } catch (error) {
    const cause = (error as { cause?: { code?: string } }).cause?.code ?? (error as { code?: string }).code
    return { ok: false, line: `failed: ${cause ?? (error as Error).message} (PUT ${base}${route})` }
  }
  const answer = (await response.json().catch(() => ({}))) as {
    message?: string
    revision?: number
    unchanged?: boolean
    errors?: { line: number; column: number; message: string }[]
  }
  if (!response.ok) {
    // A refused docs.json lists every error with its position, as `trellis docs validate` prints them.
    const details = (answer.errors ?? []).map(
      (issue) => `\n  ${upload.file}:${issue.line}:${issue.column}: ${issue.message}`,
    )
    return {
      ok: false,
      line: `failed (${response.status}): ${answer.message ?? response.statusText}${details.join('')}`,
    }
  }
  const where = config ? `revision ${answer.revision}` : `${route} revision ${answer.revision}`
  if (answer.unchanged) return { ok: true, unchanged: true, line: `unchanged (${where})` }
  return { ok: true, unchanged: false, line: `${response.status === 201 ? 'created' : 'stored'} (${where})` }
}

/**
 * Runs `work` over `items`, at most `limit` at a time, and reports each result in the items' order as
 * soon as it and every one before it are done: the output reads in path order, and still shows progress.
 */
async function inOrder<T, R>(
  items: T[],
  limit: number,
  work: (item: T) => Promise<R>,
  report: (item: T, result: R) => void,
): Promise<R[]> {
  const results: R[] = []
  const done: boolean[] = []
  let started = 0
  let reported = 0
  const worker = async () => {
    while (started < items.length) {
      const index = started++
      results[index] = await work(items[index]!)
      done[index] = true
      for (; done[reported]; reported++) report(items[reported]!, results[reported]!)
    }
  }
  await Promise.all(Array.from({ length: Math.min(limit, items.length) }, worker))
  return results
}

/** Uploads the folder's files (see planFiles), one line each, then a summary line; the number that failed. */
async function pushRepositoryFiles(root: string, base: string, token: string, io: PushIo): Promise<number> {
  const plan = await planFiles(root)
  // A folder of pages only says nothing about files.
  if (plan.files.length === 0 && plan.skipped.length === 0) return 0
  for (const { file, reason } of plan.skipped) io.stdout(`${file}: skipped: ${reason}\n`)
  const outcomes = await pushFiles(plan, base, token, (outcome) => io.stdout(`${outcome.file}: ${outcome.line}\n`))
  const failed = outcomes.filter((outcome) => !outcome.ok).length
  const unchanged = outcomes.filter((outcome) => outcome.ok && outcome.unchanged).length
  const stored = outcomes.length - failed - unchanged
  io.stdout(`files: ${stored} stored, ${unchanged} unchanged, ${plan.skipped.length} skipped, ${failed} failed\n`)
  return failed
}

async function isFolder(path: string): Promise<boolean> {
  try {
    return (await stat(path)).isDirectory()
  } catch {
    return false
  }
}

function badInvocation(io: PushIo, reason: string): number {
  io.stderr(`trellis docs push: ${reason}\n${PUSH_USAGE}\n`)
  return 2
}
