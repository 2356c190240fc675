/**
 * The console's routes (issue #30 §2) without a browser: the page under its strict CSP and its embedded files, who
 * may read what, bad chart queries as clear 400s, the daily rollup agreeing with the ledger, charts bounded to the
 * largest series plus "Other", and CSV and HTML that a hostile owner name cannot break.
 */
import { afterAll, beforeAll, describe, expect, setDefaultTimeout, test } from 'bun:test'
import { sql } from 'drizzle-orm'
import { DIMENSIONS, MEASURES, chartData } from '../../src/console/usage'
import { usageRecords } from '../../src/db/schema'
import { makeTestApp, SETUP_TIMEOUT, type TestApp } from '../helpers/app'

// bun applies the preload's default timeout to the first file only (tests/setup.ts).
setDefaultTimeout(30_000)

const PRICES = { echo: { input: 2.5, output: 10 } }
const API = [
  '/console/api/session',
  '/console/api/tokens',
  '/console/api/usage',
  '/console/api/usage.csv',
  '/console/api/live',
]

let t: TestApp
let admin: string
let reader: string
let chatter: string

beforeAll(async () => {
  t = await makeTestApp({ env: { TRELLIS_PRICES: JSON.stringify(PRICES), ECHO_TOKEN_DELAY_MS: '0' } })
  admin = await t.tokenFor('root', ['admin'])
  reader = await t.tokenFor('auditor', ['console'])
  chatter = await t.tokenFor('chatter', ['chat'])
}, SETUP_TIMEOUT)
afterAll(() => t.close(), SETUP_TIMEOUT)

/** Ledger rows written straight to the table, as the ledger's COPY would: the rollup's trigger sees both alike. */
async function insertRows(
  rows: {
    at: Date
    token: string
    owner: string
    model: string
    prompt: number
    completion: number
    cost: number
    status?: number
    cached?: number
    reasoning?: number
  }[],
) {
  await t.deps.database.db.insert(usageRecords).values(
    rows.map((row) => ({
      at: row.at,
      requestId: crypto.randomUUID(),
      tokenId: row.token,
      owner: row.owner,
      model: row.model,
      streamed: false,
      status: row.status ?? 200,
      promptTokens: row.prompt,
      completionTokens: row.completion,
      cachedTokens: row.cached ?? 0,
      reasoningTokens: row.reasoning ?? 0,
      costMicros: row.cost,
      durationMs: 1,
    })),
  )
}

describe('the page', () => {
  test('is public, under a policy that allows this origin only, and names files that are served from it', async () => {
    const page = await t.request('/console/')
    expect(page.status).toBe(200)
    expect(page.headers.get('content-security-policy')).toBe(
      "default-src 'none'; script-src 'self'; style-src 'self'; img-src 'self'; connect-src 'self'; base-uri 'none'; " +
        "form-action 'none'; frame-ancestors 'none'",
    )
    expect(page.headers.get('x-frame-options')).toBe('DENY')
    const html = await page.text()
    expect(html).not.toMatch(/https?:\/\/(?!www\.w3\.org)/)
    expect(html).not.toMatch(/<script>|<style|style="| on[a-z]+="/)
    const files = [...html.matchAll(/(?:src|href)="(\/console\/_assets\/[^"]+)"/g)].map((match) => match[1]!)
    expect(files.map((file) => file.split('.').pop()).sort()).toEqual(['css', 'js', 'svg'])
    for (const file of files) {
      const asset = await t.request(file)
      expect({ file, status: asset.status, cache: asset.headers.get('cache-control') }).toEqual({
        file,
        status: 200,
        cache: 'public, max-age=31536000, immutable',
      })
      const again = await t.request(file, { headers: { 'if-none-match': asset.headers.get('etag')! } })
      expect(again.status).toBe(304)
    }
    expect((await t.request('/console/_assets/console.0000000000.js')).status).toBe(404)
  })
})

describe('who may read what', () => {
  test.each(API)('%s: 401 without a token, 403 for a chat token, 200 for console and admin tokens', async (path) => {
    expect((await t.request(path)).status).toBe(401)
    const refused = await t.request(path, { token: chatter })
    expect(refused.status).toBe(403)
    expect(await refused.text()).toContain('console')
    expect((await t.request(path, { token: reader })).status).toBe(200)
    expect((await t.request(path, { token: admin })).status).toBe(200)
  })

  test('a console token changes nothing: the admin API still needs admin', async () => {
    const created = await t.request('/admin/tokens', {
      method: 'POST',
      token: reader,
      json: { owner: 'x', scopes: ['chat'] },
    })
    expect(created.status).toBe(403)
    const session = await (await t.request('/console/api/session', { token: reader })).json()
    expect(session).toMatchObject({ owner: 'auditor', scopes: ['console'], can_change_tokens: false })
  })

  test('the token list never holds a secret', async () => {
    const text = await (await t.request('/console/api/tokens', { token: admin })).text()
    for (const secret of [admin, reader, chatter]) expect(text).not.toContain(secret)
  })
})

describe('bad chart queries are 400s that name the field', () => {
  test.each([
    ['by=plant', 'by must be one of model, owner, token'],
    ['measure=joy', 'measure must be one of cost, tokens, requests'],
    ['bucket=minute', 'bucket must be one of day, hour'],
    ['days=0', 'days must be a whole number from 1 to 400'],
    ['days=401', 'days must be a whole number from 1 to 400'],
    ['days=1.5', 'days must be a whole number from 1 to 400'],
    ['bucket=hour&days=8', 'days must be at most 7 for an hourly chart'],
  ])('%s', async (query, message) => {
    for (const path of ['/console/api/usage', '/console/api/usage.csv']) {
      const response = await t.request(`${path}?${query}`, { token: admin })
      expect(response.status).toBe(400)
      expect(await response.text()).toContain(message)
    }
  })
})

const rowsOf = (result: unknown) => ((result as { rows?: unknown[] }).rows ?? result) as Record<string, unknown>[]

let edgeRowsWritten: Promise<void> | undefined
/**
 * Ledger rows of early 2025, away from the other tests' rows: twelve tokens of four owners and three models spending
 * differently on each day from January 1 to April 15 (none on every third day), and one token, owner and model whose
 * only rows are on March 30, which a range ending before it must not show although March's monthly row holds it.
 */
function edgeRows(): Promise<void> {
  edgeRowsWritten ??= insertRows([
    ...Array.from({ length: 105 }, (_, d) =>
      Array.from({ length: 12 }, (_, k) => ({ d, k })).filter(({ d, k }) => (d + k) % 3 !== 0),
    )
      .flat()
      .map(({ d, k }) => ({
        at: new Date(Date.UTC(2025, 0, 1 + d, (d * 5 + k) % 24)),
        token: `tok_edge${String(k).padStart(8, '0')}`,
        owner: `edge-owner-${k % 4}`,
        model: `edge-model-${k % 3}`,
        prompt: ((d * 7 + k * 11) % 13) * 10,
        completion: ((d * 3 + k * 5) % 7) * 10,
        cost: (k + 1) * (((d * 31 + k * 17) % 23) + 1),
      })),
    ...[1, 2].map(() => ({
      at: new Date(Date.UTC(2025, 2, 30, 9)),
      token: 'tok_edgelate00000',
      owner: 'edge-late',
      model: 'edge-late',
      prompt: 100_000,
      completion: 100_000,
      cost: 10_000_000,
    })),
  ])
  return edgeRowsWritten
}

describe('usage', () => {
  test('the daily and monthly rollups hold what the ledger holds, cost included, for requests made through the server', async () => {
    await edgeRows() // months of rows too
    for (let i = 0; i < 4; i++) {
      const answer = await t.request('/v1/chat/completions', {
        method: 'POST',
        token: chatter,
        json: { model: i % 2 ? 'echo' : 'echo-reasoner', messages: [{ role: 'user', content: `fern ${i}` }] },
      })
      expect(answer.status).toBe(200)
    }
    await t.deps.ledger!.flush()
    // Cache reads, reasoning and failures too, two to a batch as rows of one group: every total of the rollups.
    const at = new Date()
    await insertRows([
      { at, token: 'tok_r1', owner: 'o-r', model: 'm-r', prompt: 10, completion: 5, cost: 7, cached: 4, reasoning: 2 },
      { at, token: 'tok_r1', owner: 'o-r', model: 'm-r', prompt: 20, completion: 0, cost: 3, status: 502 },
    ])
    const query = (text: string) => t.deps.database.db.execute(sql.raw(text)).then(rowsOf)
    const totals =
      'sum(prompt_tokens)::int as prompt, sum(completion_tokens)::int as completion, sum(cost_micros)::int as cost, ' +
      'sum(cached_tokens)::int as cached, sum(reasoning_tokens)::int as reasoning'
    const ledgerErrors = 'count(*) filter (where status >= 400 or error_code is not null)::int as errors'
    for (const [dimension, column] of [
      ['model', 'model'],
      ['owner', 'owner'],
      ['token', 'token_id'],
    ]) {
      const day = "to_char(at at time zone 'UTC', 'YYYY-MM-DD')"
      const ledger = await query(
        `select ${column} as key, ${day} as day, count(*)::int as requests, ${totals}, ${ledgerErrors} from usage_records group by 1, 2 order by 1, 2`,
      )
      const rollup = await query(
        `select key, to_char(day, 'YYYY-MM-DD') as day, requests::int, ${totals}, sum(errors)::int as errors from usage_daily ` +
          `where dimension = '${dimension}' group by 1, 2, 3 order by 1, 2`,
      )
      expect({ dimension, rollup }).toEqual({ dimension, rollup: ledger })
      expect(rollup.some((row) => (row.cost as number) > 0)).toBe(true)
      const month = "to_char(at at time zone 'UTC', 'YYYY-MM') || '-01'"
      const ledgerMonths = await query(
        `select ${column} as key, ${month} as month, count(*)::int as requests, ${totals}, ${ledgerErrors} from usage_records group by 1, 2 order by 1, 2`,
      )
      const monthly = await query(
        `select key, to_char(month, 'YYYY-MM-DD') as month, requests::int, ${totals}, sum(errors)::int as errors from usage_monthly ` +
          `where dimension = '${dimension}' group by 1, 2, 3 order by 1, 2`,
      )
      expect({ dimension, monthly }).toEqual({ dimension, monthly: ledgerMonths })
    }
  })

  test.each([
    // [now, days]: the range is the `days` days ending with the day of `now`.
    ['2025-03-20T12:00:00Z', 30], // a cut February's days, March less its later days (some with rows)
    ['2025-03-05T00:00:00Z', 60], // January less its first days, all of February, March's first days
    ['2025-04-10T23:59:59Z', 100], // from December (no rows) to April
    ['2025-02-20T08:00:00Z', 10], // inside one month
    ['2025-03-31T10:00:00Z', 31], // exactly March
    ['2025-02-28T10:00:00Z', 28], // exactly February
  ] as const)(
    "the top series over months and their edges (now %s, %i days) are the ledger rows' own",
    async (at, days) => {
      await edgeRows()
      const now = new Date(at)
      const to = new Date(Math.floor(now.getTime() / 86_400_000) * 86_400_000 + 86_400_000)
      const from = new Date(to.getTime() - days * 86_400_000)
      const column = { model: 'model', owner: 'owner', token: 'token_id' }
      const measure = { cost: 'cost_micros', tokens: 'prompt_tokens + completion_tokens', requests: '1' }
      for (const by of DIMENSIONS)
        for (const what of MEASURES) {
          const ledger = rowsOf(
            await t.deps.database.db.execute(
              sql`select ${sql.raw(column[by])} as key from usage_records where at >= ${from.toISOString()}::timestamptz
              and at < ${to.toISOString()}::timestamptz group by 1
              order by sum((${sql.raw(measure[what])})::float8) desc, 1 limit 10`,
            ),
          ).map((row) => String(row.key))
          const chart = await chartData(t.deps.database.db, { by, bucket: 'day', days, measure: what, now })
          const expected = ledger.length > 9 ? ledger.slice(0, 8) : ledger
          expect({ by, what, series: chart.series.filter((key) => key !== null) }).toEqual({
            by,
            what,
            series: expected,
          })
          expect(chart.series.includes(null)).toBe(ledger.length > 9)
        }
    },
  )

  test('a chart draws the 8 largest series and sums the rest as Other; its table and CSV agree on the totals', async () => {
    const owner = `many-${crypto.randomUUID().slice(0, 6)}`
    const now = new Date()
    // Twelve tokens, token k spending k * 1,000 micro-dollars, on each of two days.
    const rows = Array.from({ length: 12 }, (_, k) =>
      [0, 1].map((daysAgo) => ({
        at: new Date(now.getTime() - daysAgo * 86_400_000),
        token: `tok_chart${String(k).padStart(7, '0')}`,
        owner,
        model: 'echo',
        prompt: 10,
        completion: 5,
        cost: (k + 1) * 1_000,
      })),
    ).flat()
    await insertRows(rows)
    const html = await (await t.request('/console/api/usage?by=token&measure=cost&days=2', { token: reader })).text()
    const named = [...html.matchAll(/<tr><th scope="row">(tok_chart\d+)<\/th>/g)].map((match) => match[1])
    // The other tests' tokens spent less than the smallest of these, so the top 8 are the 8 most expensive.
    expect(named).toEqual(Array.from({ length: 8 }, (_, i) => `tok_chart${String(11 - i).padStart(7, '0')}`))
    expect(html).toContain('<tr><th scope="row">Other</th>')
    expect(html.match(/<rect /g)!.length).toBeLessThanOrEqual(2 * 9)
    const csv = await (await t.request('/console/api/usage.csv?by=token&measure=cost&days=2', { token: reader })).text()
    const [header, ...lines] = csv.trimEnd().split('\r\n')
    expect(header).toBe('day,token,requests,prompt_tokens,completion_tokens,errors,cost_micros,cost_usd')
    const csvCost = lines.reduce((sum, line) => sum + Number(line.split(',')[6]), 0)
    const total =
      /<tfoot><tr><th scope="row">Total<\/th>(?:<td class="num">[^<]*<\/td>){4}<td class="num">\$([\d,.]+)<\/td>/.exec(
        html,
      )
    expect(Math.round(Number(total![1]!.replaceAll(',', '')) * 1e6)).toBe(csvCost)
    expect(lines.every((line) => Number(line.split(',')[6]) === Math.round(Number(line.split(',')[7]) * 1e6))).toBe(
      true,
    )
  })

  test('an hourly chart reads the ledger rows of the last hours', async () => {
    const owner = `hourly-${crypto.randomUUID().slice(0, 6)}`
    await insertRows([
      { at: new Date(), token: 'tok_hourly000001', owner, model: 'echo', prompt: 7, completion: 3, cost: 55 },
    ])
    const csv = await (
      await t.request('/console/api/usage.csv?by=owner&bucket=hour&days=1&measure=requests', { token: admin })
    ).text()
    const hour = `${new Date().toISOString().slice(0, 13)}:00Z`
    expect(csv).toContain(`${hour},${owner},1,7,3,0,55,0.000055`)
  })

  test('owner names reach HTML escaped and CSV unable to run as a spreadsheet formula', async () => {
    const owner = `=HYPERLINK("x"),<b onmouseover=alert(1)>`
    await insertRows([
      { at: new Date(), token: 'tok_hostile00001', owner, model: 'echo', prompt: 1, completion: 1, cost: 1 },
    ])
    const html = await (await t.request('/console/api/usage?by=owner&days=1', { token: admin })).text()
    expect(html).not.toContain('<b onmouseover')
    expect(html).toContain('=HYPERLINK(&quot;x&quot;),&lt;b onmouseover=alert(1)&gt;')
    const csv = await (await t.request('/console/api/usage.csv?by=owner&days=1', { token: admin })).text()
    expect(csv).toContain(`,"'=HYPERLINK(""x""),<b onmouseover=alert(1)>",`)
  })
})

describe('live', () => {
  // An app of its own: responses of other tests whose bodies were never read are counted when they finish.
  test('counts requests and streams from the metrics registry, leaving out the console’s own', async () => {
    const live = await makeTestApp({ env: { ECHO_TOKEN_DELAY_MS: '0' } })
    try {
      const [watcher, user] = [await live.tokenFor('watcher', ['console']), await live.tokenFor('user', ['chat'])]
      const sample = async () => (await live.request('/console/api/live', { token: watcher })).json()
      const before = await sample()
      for (let i = 0; i < 3; i++) await sample()
      const answer = await live.request('/v1/chat/completions', {
        method: 'POST',
        token: user,
        json: { model: 'echo', stream: true, messages: [{ role: 'user', content: 'live' }] },
      })
      await answer.text()
      // The request is counted once its response has been sent, a moment after the client read its end.
      let after = await sample()
      for (let i = 0; i < 50 && after.requests === before.requests; i++) {
        await Bun.sleep(20)
        after = await sample()
      }
      expect(after.requests - before.requests).toBe(1)
      expect(after.ttft_count - before.ttft_count).toBe(1)
      expect(after.streams_in_flight).toBe(0)
      expect(after.at_ms).toBeGreaterThanOrEqual(before.at_ms)
    } finally {
      await live.close()
    }
  })
})
