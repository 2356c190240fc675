import { createHash, randomBytes } from 'node:crypto'
import { and, asc, eq, isNull, sql } from 'drizzle-orm'
import type { Database } from '../db/connect'
import { tokens } from '../db/schema'
import { type Principal, type Scope, SCOPES } from './model'

const TOKEN_PREFIX = 'trl_'
/** `trl_` + base64url of 32 random bytes. */
const TOKEN_SHAPE = /^trl_[A-Za-z0-9_-]{43}$/

export type TokenServiceOptions = {
  /**
   * How long a verification result is reused. Revocation from another process (the CLI,
   * another replica) takes effect within this time; revocation through this instance
   * drops the entry at once.
   */
  cacheTtlMs?: number
  /** Upper bound on cached entries, so a flood of random tokens cannot grow memory. */
  cacheSize?: number
  now?: () => number
}

type CacheEntry = { principal: Principal | null; expires: number }

/**
 * Issues, lists, revokes and verifies API tokens. Only SHA-256 hashes are stored and
 * looked up, so no secret is ever compared in JS; verified results are cached so that
 * a request costs no database round trip for auth.
 */
/** Any constant that no other advisory lock uses; the same in every replica. */
const FIRST_TOKEN_LOCK_KEY = 7_262_311_002

export class TokenService {
  private readonly cache = new Map<string, CacheEntry>()
  private readonly ttl: number
  private readonly maxEntries: number
  private readonly now: () => number
  private readonly byHash

  constructor(
    private readonly db: Database,
    options: TokenServiceOptions = {},
  ) {
    this.byHash = db
      .select({ id: tokens.id, owner: tokens.owner, scopes: tokens.scopes })
      .from(tokens)
      .where(and(eq(tokens.hash, sql.placeholder('hash')), isNull(tokens.revokedAt)))
      .limit(1)
      .prepare('tokens_by_hash')
    this.ttl = options.cacheTtlMs ?? 5000
    this.maxEntries = options.cacheSize ?? 10_000
    this.now = options.now ?? Date.now
  }

  /** Creates a token; the secret is returned here and never again. */
  async create(input: { owner: string; scopes: Scope[] }, db: Pick<Database, 'insert'> = this.db) {
    const owner = input.owner.trim()
    if (!owner || owner.length > 200) throw new Error('owner must be 1 to 200 characters')
    const secret = TOKEN_PREFIX + randomBytes(32).toString('base64url')
    const id = 'tok_' + randomBytes(9).toString('base64url')
    await db.insert(tokens).values({ id, owner, scopes: input.scopes, hash: hashToken(secret) })
    return { id, owner, scopes: input.scopes, token: secret }
  }

  /**
   * Creates a token only while none exists at all (the first-run development token). Replicas that
   * start together on an empty database queue on an advisory lock, so exactly one of them mints it.
   * @returns the created token, or undefined when one already existed.
   */
  async createFirst(input: { owner: string; scopes: Scope[] }) {
    return this.db.transaction(async (tx) => {
      await tx.execute(sql`select pg_advisory_xact_lock(${FIRST_TOKEN_LOCK_KEY})`)
      const [row] = await tx.select({ n: sql<number>`count(*)::int` }).from(tokens)
      return Number(row!.n) > 0 ? undefined : this.create(input, tx)
    })
  }

  async list() {
    return this.db
      .select({ id: tokens.id, owner: tokens.owner, scopes: tokens.scopes, createdAt: tokens.createdAt, revokedAt: tokens.revokedAt })
      .from(tokens)
      .orderBy(asc(tokens.createdAt), asc(tokens.id))
  }

  /** False when no live token has that id. */
  async revoke(id: string): Promise<boolean> {
    const rows = await this.db
      .update(tokens)
      .set({ revokedAt: sql`now()` })
      .where(and(eq(tokens.id, id), isNull(tokens.revokedAt)))
      .returning({ hash: tokens.hash })
    for (const row of rows) this.cache.delete(row.hash)
    return rows.length > 0
  }

  async count(): Promise<number> {
    const [row] = await this.db.select({ n: sql<number>`count(*)::int` }).from(tokens)
    return Number(row.n)
  }

  /** The principal behind a live token, or null for an unknown, revoked or malformed one. */
  async verify(secret: string): Promise<Principal | null> {
    if (!TOKEN_SHAPE.test(secret)) return null
    const hash = hashToken(secret)
    const now = this.now()
    const hit = this.cache.get(hash)
    if (hit && hit.expires > now) return hit.principal
    const [row] = await this.byHash.execute({ hash })
    const principal: Principal | null = row
      ? {
          tokenId: row.id,
          owner: row.owner,
          scopes: row.scopes.filter((s): s is Scope => SCOPES.includes(s as Scope)),
          isAdmin: row.scopes.includes('admin'),
        }
      : null
    this.remember(hash, principal, now)
    return principal
  }

  private remember(hash: string, principal: Principal | null, now: number) {
    this.cache.delete(hash)
    if (this.cache.size >= this.maxEntries) this.cache.delete(this.cache.keys().next().value as string)
    this.cache.set(hash, { principal, expires: now + this.ttl })
  }
}

/**
 * The stored form of a token: SHA-256, base64url. Synchronous on purpose: it runs on every
 * authenticated request, and WebCrypto's async digest cost a promise and a trip through the
 * runtime's crypto queue each time. `node:crypto` is there on Bun, Deno and Node alike.
 */
export function hashToken(secret: string): string {
  return createHash('sha256').update(secret).digest('base64url')
}
