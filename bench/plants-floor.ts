/**
 * The floor Trellis is measured against: a minimal raw Bun.serve + postgres.js handler
 * doing the same work for the two benchmarked routes — a SHA-256 hashed-token lookup in
 * a Map and the same SQL — with none of the framework, validation or logging.
 * Run by bench/plants.ts; not part of the product.
 */
import postgres from 'postgres'

const sql = postgres(process.env.DATABASE_URL!, { max: Number(process.env.DB_POOL_SIZE ?? 10), onnotice: () => {} })
const tokens = new Map<string, { owner: string }>()
for (const row of await sql<{ hash: string; owner: string }[]>`select hash, owner from tokens where revoked_at is null`)
  tokens.set(row.hash, { owner: row.owner })

async function owner(request: Request) {
  const header = request.headers.get('authorization') ?? ''
  const digest = await crypto.subtle.digest('SHA-256', new TextEncoder().encode(header.slice(7)))
  return tokens.get(Buffer.from(digest).toString('base64url'))?.owner
}

const server = Bun.serve({
  port: Number(process.env.PORT ?? 3100),
  async fetch(request) {
    const who = await owner(request)
    if (!who) return new Response('{"error":401,"message":"unauthorized"}', { status: 401 })
    const url = new URL(request.url)
    if (request.method === 'GET') {
      const limit = Number(url.searchParams.get('limit') ?? 100)
      const rows = await sql`select seq, name, tag from plants where owner = ${who} order by seq limit ${limit + 1}`
      return Response.json(
        rows.slice(0, limit).map((r) => (r.tag === null ? { name: r.name } : { name: r.name, tag: r.tag })),
      )
    }
    const body = (await request.json()) as { name: string; tag?: string; id: number }
    const inserted =
      await sql`insert into plants (id, owner, name, tag) values (${body.id}, ${who}, ${body.name.trim()}, ${body.tag ?? null}) on conflict (owner, id) do nothing returning id`
    if (inserted.length === 0) return new Response('{"error":409,"message":"duplicate"}', { status: 409 })
    return Response.json(body.tag === undefined ? { name: body.name } : { name: body.name, tag: body.tag }, {
      headers: { location: `/plants/${inserted[0]!.id}` },
    })
  },
})
console.log(JSON.stringify({ msg: 'listening', url: server.url.toString() }))
// An exit of its own on SIGTERM, so that `bun --cpu-prof` writes its profile (bench/profile-plants.ts --floor).
process.on('SIGTERM', () => process.exit(0))
