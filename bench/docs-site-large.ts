/**
 * The large-site part of bench/docs-site.ts (#27 §6): a generated Mintlify-style repository of N pages (headings,
 * code, components, links between pages), pushed with `trellis docs push` over HTTP to a listening server, then
 * crawled and searched in process. Prints one Markdown table.
 */
import { mkdtempSync, mkdirSync, rmSync, writeFileSync } from 'node:fs'
import { tmpdir } from 'node:os'
import { join } from 'node:path'
import { runDocsPush } from '../src/cli/docs-push'
import { DocsRevisionStore } from '../src/docs-config/store'
import { DocsPagesStore } from '../src/docs-pages/store'
import { makeTestApp } from '../tests/helpers/app'

/** A gardening product's documentation words, commonest first; the rest of the vocabulary is made of syllables. */
const HEAD_WORDS = (
  'the a to of and is in for with you on it plant water soil garden root leaf seed light bed rose grow pot compost ' +
  'token request page api tree flower prune harvest season spring summer autumn winter frost mulch fertilizer ' +
  'nitrogen potassium drainage clay sand loam shade sun greenhouse trellis vine tomato basil mint lavender tulip ' +
  'dahlia orchid fern moss cactus succulent irrigation drip hose sprinkler schedule sensor humidity temperature ' +
  'webhook endpoint client server query limit cursor header status error retry timeout stream event response body ' +
  'schema field owner scope create list delete update store index search result snippet cache version release ' +
  'deploy config secret key bearer quota usage budget metric alert log trace span batch queue worker job cron ' +
  'backup restore migrate replica region latency throughput payload pagination filter sort tag label note warning ' +
  'tip example guide tutorial overview reference changelog feedback support community integration plugin ' +
  'extension sdk python typescript rust go pollinator bee butterfly aphid ladybird slug snail blight mildew fungus ' +
  'pest organic heirloom hybrid germination seedling transplant cutting graft bulb tuber rhizome perennial annual'
).split(' ')
/** The head words PostgreSQL's English configuration does not index. */
const STOP_WORDS = new Set(HEAD_WORDS.slice(0, 10))
const SYLLABLES = 'ka lo mi ra ten sol vin dor pel qua bri zu nex tor lan fie gos hum'.split(' ')
/** About 6,000 words, as a product's documentation has: the head words, then two- and three-syllable coinages. */
export const WORDS = [
  ...HEAD_WORDS,
  ...SYLLABLES.flatMap((a) => SYLLABLES.flatMap((b) => SYLLABLES.map((c) => `${a}${b}${c}`))),
  ...SYLLABLES.flatMap((a) => SYLLABLES.map((b) => `${a}${b}`)),
]
/** Zipf's law (s = 1.05) over the vocabulary: cumulative weights, searched by bisection. */
const ZIPF = (() => {
  const weights = WORDS.map((_, rank) => 1 / (rank + 1) ** 1.05)
  const total = weights.reduce((sum, weight) => sum + weight, 0)
  let running = 0
  return weights.map((weight) => (running += weight / total))
})()
function zipfWord(u: number): string {
  let low = 0
  let high = ZIPF.length - 1
  while (low < high) {
    const middle = (low + high) >> 1
    if (ZIPF[middle]! < u) low = middle + 1
    else high = middle
  }
  return WORDS[low]!
}

/** A small deterministic generator, so every run pushes the same site. */
function random(seed: number): () => number {
  let state = seed >>> 0
  return () => {
    state = (Math.imul(state ^ (state >>> 15), 0x2c1b3c6d) + 0x6d2b79f5) >>> 0
    return state / 2 ** 32
  }
}

/** The site: `pages` pages in groups of 50, each with 3–6 sections, code, components and links. */
export function generateSite(pages: number): { dir: string; paths: string[] } {
  const dir = mkdtempSync(join(tmpdir(), 'trellis-bench-site-'))
  const next = random(27)
  const word = () => zipfWord(next())
  const words = (n: number) => Array.from({ length: n }, word).join(' ')
  const sentence = () => {
    const text = words(8 + Math.floor(next() * 14))
    return `${text[0]!.toUpperCase()}${text.slice(1)}.`
  }
  const paragraph = () => Array.from({ length: 3 + Math.floor(next() * 4) }, sentence).join(' ')
  const paths = Array.from({ length: pages }, (_, i) => `section-${Math.floor(i / 50)}/page-${i}`)
  const link = () => `[${words(2)}](/${paths[Math.floor(next() * pages)]!})`
  for (const [i, path] of paths.entries()) {
    const sections = Array.from({ length: 3 + Math.floor(next() * 4) }, (_, s) => {
      const heading = `## ${words(2 + Math.floor(next() * 3))} ${s}`
      const parts = [heading, paragraph(), `${paragraph()} See ${link()} and ${link()}.`]
      if (s % 3 === 0)
        parts.push(
          `\`\`\`typescript\nconst ${word()} = await client.${word()}({ limit: ${i}, tag: '${word()}' })\n\`\`\``,
        )
      if (s % 3 === 1) parts.push(`<Note>${sentence()}</Note>`, `### ${words(3)}\n\n${paragraph()}`)
      if (s % 3 === 2)
        parts.push(
          `<CardGroup cols={2}>\n<Card title="${words(2)}" icon="leaf" href="/${paths[(i + 1) % pages]}">${sentence()}</Card>\n</CardGroup>`,
          `<Steps>\n<Step title="${words(2)}">${sentence()}</Step>\n<Step title="${words(2)}">${sentence()}</Step>\n</Steps>`,
        )
      return parts.join('\n\n')
    })
    const text = `---\ntitle: "${words(3)} ${i}"\ndescription: "${sentence()}"\n---\n\n${paragraph()}\n\n${sections.join('\n\n')}\n`
    mkdirSync(join(dir, path, '..'), { recursive: true })
    writeFileSync(join(dir, `${path}.mdx`), text)
  }
  const navigation = Array.from({ length: Math.ceil(pages / 50) }, (_, g) => ({
    group: `Section ${g}`,
    pages: paths.slice(g * 50, g * 50 + 50),
  }))
  writeFileSync(join(dir, 'docs.json'), JSON.stringify({ name: 'Bench Garden', navigation }, null, 2))
  return { dir, paths }
}

function percentile(sorted: number[], p: number): number {
  return sorted[Math.min(sorted.length - 1, Math.floor((p / 100) * sorted.length))]!
}
const stats = (samples: number[]) => {
  const sorted = [...samples].sort((a, b) => a - b)
  return { p50: percentile(sorted, 50), p95: percentile(sorted, 95) }
}
const ms = (ns: number) => `${(ns / 1e6).toFixed(2)} ms`
const mib = (bytes: number) => `${(bytes / 1024 / 1024).toFixed(0)} MiB`

/** Pushes a generated site of `pages` pages, crawls it and searches it; prints the numbers. */
export async function benchLargeSite(pages: number, backend: string): Promise<void> {
  const { dir, paths } = generateSite(pages)
  const t = await makeTestApp({ env: { LOG_LEVEL: 'warn' }, transport: 'listening server' })
  const token = await t.tokenFor('bench', ['docs:write'])
  const rssBefore = process.memoryUsage().rss
  let started = performance.now()
  let out = ''
  const code = await runDocsPush([dir, '--url', t.origin!, '--token', token], {
    stdout: (text) => void (out += text),
    stderr: (text) => void (out += text),
    env: {},
  })
  const pushSeconds = (performance.now() - started) / 1000
  if (code !== 0) throw new Error(`push failed:\n${out.slice(-2000)}`)

  const timed = async (path: string) => {
    const begin = Bun.nanoseconds()
    const response = await t.app.handle(new Request(`http://localhost${path}`))
    await response.arrayBuffer()
    if (response.status !== 200) throw new Error(`${path} answered ${response.status}`)
    return Bun.nanoseconds() - begin
  }
  // First render: every page once, each rendered from scratch.
  const first: number[] = []
  for (const path of paths) first.push(await timed(`/docs/${path}`))
  // Cached: a working set that fits the rendered-page cache (300 pages), round after round.
  const working = paths.slice(0, 250)
  for (const path of working) await timed(`/docs/${path}`)
  // The reference: the same two queries per request, the same HTML from memory, without Elysia or the site; its
  // requests alternate with the site's, so both meet the same machine.
  const configStore = new DocsRevisionStore(t.deps.database.db)
  const pagesStore = new DocsPagesStore(t.deps.database.db)
  const html = await (await t.app.handle(new Request(`http://localhost/docs/${working[0]}`))).text()
  const raw = Bun.serve({
    port: 0,
    fetch: async () => {
      await Promise.all([configStore.latestSummary(), pagesStore.generation()])
      return new Response(html, { headers: { 'content-type': 'text/html; charset=utf-8' } })
    },
  })
  const cached: number[] = []
  const reference: number[] = []
  for (let round = 0; round < 8; round++) {
    for (const path of working) {
      cached.push(await timed(`/docs/${path}`))
      const begin = Bun.nanoseconds()
      const response = await raw.fetch(new Request(`http://localhost/docs/${path}`))
      await response.arrayBuffer()
      reference.push(Bun.nanoseconds() - begin)
    }
  }
  await raw.stop(true)
  const rssCrawled = process.memoryUsage().rss

  // Queries as readers type them: a content word (drawn as the text draws them, so common words come up most), two
  // words, a phrase, a word half typed; and the commonest content words on their own, the worst case.
  const next = random(6)
  const content = () => {
    for (;;) {
      const candidate = zipfWord(next())
      if (!STOP_WORDS.has(candidate)) return candidate
    }
  }
  const queries = Array.from({ length: 300 }, (_, i) => {
    const kind = i % 6
    if (kind === 0) return HEAD_WORDS[10 + (i % 12)]!
    if (kind === 1) return content()
    if (kind === 2) return `${content()} ${content()}`
    if (kind === 3) return `"${content()} ${content()}"`
    if (kind === 4) return content().slice(0, 4)
    return `${content()} ${content().slice(0, 3)}`
  })
  await timed(`/docs/search?q=warm`)
  const searched: number[] = []
  for (const query of queries) searched.push(await timed(`/docs/search?q=${encodeURIComponent(query)}`))
  const worst = [...queries.keys()].sort((a, b) => searched[b]! - searched[a]!)[0]!
  const rssEnd = process.memoryUsage().rss

  const f = stats(first)
  const c = stats(cached)
  const r = stats(reference)
  const s = stats(searched)
  console.log(`\n# docs site, ${pages} generated pages (${backend}, ${new Date().toISOString()}, Bun ${Bun.version})\n`)
  console.log('| measure | p50 | p95 |')
  console.log('|---|---:|---:|')
  console.log(`| push (\`trellis docs push\`, HTTP, 4 at a time) | ${pushSeconds.toFixed(1)} s in all | |`)
  console.log(`| first render, every page once | ${ms(f.p50)} | ${ms(f.p95)} |`)
  console.log(`| cached page (250-page working set × 8) | ${ms(c.p50)} | ${ms(c.p95)} |`)
  console.log(`| raw Bun.serve handler, same 2 queries + same HTML | ${ms(r.p50)} | ${ms(r.p95)} |`)
  console.log(`| cached ÷ raw | ${(c.p50 / r.p50).toFixed(2)}× | ${(c.p95 / r.p95).toFixed(2)}× |`)
  console.log(`| search, ${queries.length} queries | ${ms(s.p50)} | ${ms(s.p95)} |`)
  console.log(`\nslowest search: "${queries[worst]}" ${ms(searched[worst]!)}`)
  console.log(
    `RSS: ${mib(rssBefore)} before the push, ${mib(rssCrawled)} after push and crawl, ${mib(rssEnd)} after searching`,
  )
  await t.close()
  rmSync(dir, { recursive: true, force: true })
}
