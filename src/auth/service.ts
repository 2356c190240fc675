import { createHash, randomBytes } from 'node:crypto'
import { and, asc, eq, isNull, sql } from 'drizzle-orm'
import type { Database } from '../db/connect'
import { type TokenLimits, tokens } from '../db/schema'
import { characterCount } from '../http/int64'
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
  /** Upper bound on cached live tokens. */
  cacheSize?: number
  /** Upper bound on remembered unknown tokens, kept apart so that a flood of them evicts no live one. */
  unknownCacheSize?: number
  now?: () => number
}

type CacheEntry = { principal: Principal; expires: number }

/** What a new token may carry besides its owner and scopes. */
export type TokenGrants = {
  limits?: TokenLimits | null
  models?: string[] | null
  expiresAt?: Date | null
  /** Its chat answers carry `x-trellis-cost`. */
  costHeader?: boolean
}

/** A token as listed: everything but its secret. */
export type TokenRecord = {
  id: string
  owner: string
  scopes: string[]
  limits: TokenLimits | null
  models: string[] | null
  expiresAt: Date | null
  costHeader: boolean
  createdAt: Date
  revokedAt: Date | null
}

/**
 * A change to a token: each field present replaces it (null clears it); `limits` merges per field, null clearing one.
 */
export type TokenChange = {
  limits?: { [K in keyof TokenLimits]?: number | null } | null
  models?: string[] | null
  expiresAt?: Date | null
  costHeader?: boolean
}

/** Any constant that no other advisory lock uses; the same in every replica. */
const FIRST_TOKEN_LOCK_KEY = 7_262_311_002

const RECORD_COLUMNS = {
  id: tokens.id,
  owner: tokens.owner,
  scopes: tokens.scopes,
  limits: tokens.limits,
  models: tokens.models,
  expiresAt: tokens.expiresAt,
  costHeader: tokens.costHeader,
  createdAt: tokens.createdAt,
  revokedAt: tokens.revokedAt,
}

/**
 * Issues, lists, changes, revokes and verifies API tokens. Only SHA-256 hashes are stored and
 * looked up, so no secret is ever compared in JS; verified results are cached so that a request
 * costs no database round trip for auth. Expired tokens are refused like revoked ones.
 */
export class TokenService {
  private readonly cache = new Map<string, CacheEntry>()
  private readonly unknown = new Map<string, number>()
  private readonly ttl: number
  private readonly maxEntries: number
  private readonly maxUnknown: number
  private readonly now: () => number
  private readonly byHash

  constructor(
    private readonly db: Database,
    options: TokenServiceOptions = {},
  ) {
    this.byHash = db
      .select({
        id: tokens.id,
        owner: tokens.owner,
        scopes: tokens.scopes,
        limits: tokens.limits,
        models: tokens.models,
        expiresAt: tokens.expiresAt,
        costHeader: tokens.costHeader,
      })
      .from(tokens)
      .where(and(eq(tokens.hash, sql.placeholder('hash')), isNull(tokens.revokedAt)))
      .limit(1)
      .prepare('tokens_by_hash')
    this.ttl = options.cacheTtlMs ?? 5000
    this.maxEntries = options.cacheSize ?? 10_000
    this.maxUnknown = options.unknownCacheSize ?? 1_000
    this.now = options.now ?? Date.now
  }

  /** Creates a token; the secret is returned here and never again. */
  async create(input: { owner: string; scopes: Scope[] } & TokenGrants, db: Pick<Database, 'insert'> = this.db) {
    const owner = input.owner.trim()
    // Characters as a person counts them (code points), as the HTTP and CLI checks count: an emoji is one.
    if (!owner || characterCount(owner) > 200) throw new Error('owner must be 1 to 200 characters')
    const secret = TOKEN_PREFIX + randomBytes(32).toString('base64url')
    const id = 'tok_' + randomBytes(9).toString('base64url')
    const [row] = await db
      .insert(tokens)
      .values({
        id,
        owner,
        scopes: input.scopes,
        hash: hashToken(secret),
        limits: emptyToNull(input.limits),
        models: input.models ?? null,
        expiresAt: input.expiresAt ?? null,
        costHeader: input.costHeader ?? false,
      })
      .returning(RECORD_COLUMNS)
    return { ...(row as TokenRecord), token: secret }
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

  /** Every token, oldest first; never their secrets. */
  async list(): Promise<TokenRecord[]> {
    return (await this.db
      .select(RECORD_COLUMNS)
      .from(tokens)
      .orderBy(asc(tokens.createdAt), asc(tokens.id))) as TokenRecord[]
  }

  async get(id: string): Promise<TokenRecord | undefined> {
    const [row] = await this.db.select(RECORD_COLUMNS).from(tokens).where(eq(tokens.id, id))
    return row as TokenRecord | undefined
  }

  /** Changes a live token's limits, models, expiry or cost header; undefined when no live token has that id. */
  async update(id: string, change: TokenChange): Promise<TokenRecord | undefined> {
    return this.db.transaction(async (tx) => {
      const [current] = await tx
        .select({ limits: tokens.limits })
        .from(tokens)
        .where(and(eq(tokens.id, id), isNull(tokens.revokedAt)))
        .for('update')
      if (!current) return undefined
      const set: Partial<typeof tokens.$inferInsert> = {}
      if (change.limits !== undefined)
        set.limits = change.limits === null ? null : emptyToNull(mergeLimits(current.limits ?? {}, change.limits))
      if (change.models !== undefined) set.models = change.models
      if (change.expiresAt !== undefined) set.expiresAt = change.expiresAt
      if (change.costHeader !== undefined) set.costHeader = change.costHeader
      const [row] = await tx
        .update(tokens)
        .set(set)
        .where(eq(tokens.id, id))
        .returning({ ...RECORD_COLUMNS, hash: tokens.hash })
      const { hash, ...record } = row!
      this.cache.delete(hash)
      return record as TokenRecord
    })
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

  /** The principal of a token this process verified lately, if any; no database round trip. */
  cached(secret: string): Principal | undefined {
    if (!TOKEN_SHAPE.test(secret)) return undefined
    const hit = this.cache.get(hashToken(secret))
    return hit && hit.expires > this.now() ? hit.principal : undefined
  }

  /** The principal behind a live token, or null for an unknown, revoked, expired or malformed one. */
  async verify(secret: string): Promise<Principal | null> {
    if (!TOKEN_SHAPE.test(secret)) return null
    const hash = hashToken(secret)
    const now = this.now()
    const hit = this.cache.get(hash)
    if (hit && hit.expires > now) return hit.principal
    const unknownUntil = this.unknown.get(hash)
    if (unknownUntil !== undefined && unknownUntil > now) return null
    const [row] = await this.byHash.execute({ hash })
    const expiresAt = row?.expiresAt?.getTime()
    if (!row || (expiresAt !== undefined && expiresAt <= now)) {
      this.rememberUnknown(hash, now)
      return null
    }
    const principal: Principal = {
      tokenId: row.id,
      owner: row.owner,
      scopes: row.scopes.filter((s): s is Scope => SCOPES.includes(s as Scope)),
      isAdmin: row.scopes.includes('admin'),
      limits: row.limits ?? {},
      ...(row.models ? { models: row.models } : {}),
      ...(row.costHeader ? { costHeader: true } : {}),
    }
    // An expiring token is not cached past its expiry.
    this.remember(hash, principal, Math.min(now + this.ttl, expiresAt ?? Number.POSITIVE_INFINITY))
    return principal
  }

  private remember(hash: string, principal: Principal, expires: number) {
    this.cache.delete(hash)
    if (this.cache.size >= this.maxEntries) this.cache.delete(this.cache.keys().next().value as string)
    this.cache.set(hash, { principal, expires })
  }

  private rememberUnknown(hash: string, now: number) {
    this.unknown.delete(hash)
    if (this.unknown.size >= this.maxUnknown) this.unknown.delete(this.unknown.keys().next().value as string)
    this.unknown.set(hash, now + this.ttl)
  }
}

function mergeLimits(current: TokenLimits, change: NonNullable<TokenChange['limits']>): TokenLimits {
  const merged: Record<string, number> = { ...current }
  for (const [key, value] of Object.entries(change)) {
    if (value === null || value === undefined) delete merged[key]
    else merged[key] = value
  }
  return merged
}

const emptyToNull = (limits: TokenLimits | null | undefined) =>
  limits && Object.keys(limits).length > 0 ? limits : null

/**
 * The stored form of a token: SHA-256, base64url. Synchronous on purpose: it runs on every
 * authenticated request, and WebCrypto's async digest cost a promise and a trip through the
 * runtime's crypto queue each time. `node:crypto` is there on Bun, Deno and Node alike.
 */
export function hashToken(secret: string): string {
  return createHash('sha256').update(secret).digest('base64url')
}
