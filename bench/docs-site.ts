/**
 * Server time of a rendered docs-site page (#16 §4), on the real app with the embedded PGlite, in process:
 *
 *   bun bench/docs-site.ts [--requests 2000] [--changes 40]
 *   bun bench/docs-site.ts --pages 1000     # only the large site (#27 §6; see docs-site-large.ts)
 *
 * For the built-in default site and for the largest file of the docs.json corpus (its navigation's pages
 * unwritten, plus one written page), it times `app.handle` of a page request:
 * - unchanged: the same page again and again (each request still reads the docs.json ETag and the pages'
 *   generation from the database, then serves the rendered page from memory);
 * - after a change: the first request after a `PUT /docs.json` that alternates between two versions of
 *   the config, or (for the built-in default site, whose docs.json is not stored) after a page PUT; the PUT
 *   itself is not timed, and the page is rendered from scratch.
 * The reference, in the same run: a raw fetch handler doing the same work without Elysia or the site's
 * service: the same two queries through the same database (the docs.json ETag, the pages' generation),
 * then the same HTML from memory. The ratio is what the route, the request log and the cache lookup add.
 * Targets: ≤ 2 ms unchanged, ≤ 20 ms after a change.
 */
import { readdirSync, readFileSync, statSync } from 'node:fs'
import { join } from 'node:path'
import { DocsPagesStore } from '../src/docs-pages/store'
import { DocsRevisionStore } from '../src/docs-config/store'
import { validateDocsConfig } from '../src/docs-config/validation/validate'
import { makeTestApp } from '../tests/helpers/app'
import { benchLargeSite } from './docs-site-large'

const argument = (name: string, fallback: number) => {
  const at = Bun.argv.indexOf(`--${name}`)
  return at === -1 ? fallback : Number(Bun.argv[at + 1])
}
const REQUESTS = argument('requests', 2000)
const CHANGES = argument('changes', 40)
const CORPUS = join(import.meta.dir, '../tests/fixtures/docs-json-corpus')

if (Bun.argv.includes('--pages')) {
  await benchLargeSite(argument('pages', 1000), process.env.DATABASE_URL ? 'PostgreSQL 15' : 'embedded PGlite')
  process.exit(0)
}

const t = await makeTestApp({ env: { LOG_LEVEL: 'info' } })
const writer = await t.tokenFor('bench', ['docs:write'])

function percentile(sorted: number[], p: number): number {
  return sorted[Math.min(sorted.length - 1, Math.floor((p / 100) * sorted.length))]!
}
const summary = (samples: number[]) => {
  const sorted = [...samples].sort((a, b) => a - b)
  return { p50: percentile(sorted, 50), p99: percentile(sorted, 99) }
}
const ms = (ns: number) => `${(ns / 1e6).toFixed(3)} ms`

async function timed(path: string): Promise<number> {
  const started = Bun.nanoseconds()
  const response = await t.app.handle(new Request(`http://localhost${path}`))
  await response.arrayBuffer()
  if (response.status !== 200) throw new Error(`${path} answered ${response.status}`)
  return Bun.nanoseconds() - started
}

async function put(config: unknown): Promise<void> {
  const response = await t.request('/docs.json', { method: 'PUT', token: writer, json: config })
  if (response.status !== 200) throw new Error(`PUT /docs.json answered ${response.status}: ${await response.text()}`)
}

const configStore = new DocsRevisionStore(t.deps.database.db)
const pagesStore = new DocsPagesStore(t.deps.database.db)

/** The raw handler: the same two queries, then the same HTML from memory. */
async function floor(html: string): Promise<number> {
  const handler = async (_request: Request) => {
    await Promise.all([configStore.latestSummary(), pagesStore.generation()])
    return new Response(html, { headers: { 'content-type': 'text/html; charset=utf-8' } })
  }
  const started = Bun.nanoseconds()
  const response = await handler(new Request('http://localhost/docs/'))
  await response.arrayBuffer()
  return Bun.nanoseconds() - started
}

/** A page PUT: the change that re-renders the built-in default site (its docs.json never changes). */
async function touchPage(i: number): Promise<void> {
  const response = await t.request('/docs/pages/bench/touch', {
    method: 'PUT',
    token: writer,
    body: `change ${i}\n`,
    headers: { 'content-type': 'text/markdown' },
  })
  if (response.status !== 200 && response.status !== 201) throw new Error(`PUT page answered ${response.status}`)
}

async function measure(label: string, path: string, configs: [unknown, unknown] | undefined) {
  if (configs !== undefined) await put(configs[0])
  const html = await (await t.app.handle(new Request(`http://localhost${path}`))).text()
  // Warm-up, unmeasured, for the JIT.
  for (let i = 0; i < 200; i++) {
    await timed(path)
    await floor(html)
  }
  const unchanged: number[] = []
  const reference: number[] = []
  for (let i = 0; i < REQUESTS; i++) {
    unchanged.push(await timed(path))
    reference.push(await floor(html))
  }
  const changed: number[] = []
  for (let i = 0; i < CHANGES; i++) {
    if (configs === undefined) await touchPage(i)
    else await put(configs[(i + 1) % 2])
    changed.push(await timed(path))
  }
  const u = summary(unchanged)
  const r = summary(reference)
  const c = changed.length === 0 ? undefined : summary(changed)
  console.log(
    `| ${label} | ${(html.length / 1024).toFixed(0)} KB | ${ms(u.p50)} | ${ms(u.p99)} | ${ms(r.p50)} | ${(u.p50 / r.p50).toFixed(1)}× | ${c ? ms(c.p50) : '—'} | ${c ? ms(c.p99) : '—'} |`,
  )
}

/** The largest docs.json of the corpus that validates (a real site's config), by size. */
function largestCorpusConfig(): { name: string; config: Record<string, unknown> } {
  const files = readdirSync(CORPUS)
    .map((name) => ({ name, size: statSync(join(CORPUS, name)).size }))
    .sort((a, b) => b.size - a.size)
  for (const file of files) {
    const text = readFileSync(join(CORPUS, file.name), 'utf8')
    if (validateDocsConfig(text).valid) return { name: file.name, config: JSON.parse(text) }
  }
  throw new Error('empty corpus')
}

console.log(
  `# docs site: server time per page (${new Date().toISOString()}, Bun ${Bun.version}, embedded PGlite, in process)\n`,
)
console.log(`${REQUESTS} requests per row unchanged, ${CHANGES} after a change\n`)
console.log(
  '| site, page | page size | unchanged p50 | unchanged p99 | raw handler p50 | Trellis ÷ raw | after a change p50 | after a change p99 |',
)
console.log('|---|---:|---:|---:|---:|---:|---:|---:|')
await measure('default site, home', '/docs/', undefined)
await measure('default site, API page (POST /plants)', '/docs/api-reference/plants/post-plants', undefined)
const largest = largestCorpusConfig()
const firstPage = (JSON.stringify(largest.config.navigation).match(/"pages":\["([^"]+)"/) ?? [])[1] ?? ''
const variant = { ...largest.config, name: `${String(largest.config.name)} (edited)` }
await measure(`largest corpus file (${largest.name}), home`, '/docs/', [largest.config, variant])
await measure(`largest corpus file, first page (${firstPage})`, `/docs/${firstPage}`, [largest.config, variant])
await t.close()
