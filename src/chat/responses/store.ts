import { and, asc, desc, eq, gt, inArray, lt, lte, min } from 'drizzle-orm'
import type { Database } from '../../db/connect'
import { responseItems, responses } from '../../db/schema'
import type { JsonObject } from '../providers/provider'
import type { StoredItem } from './input'

/*
 * Stored responses, per owner (see the `responses` and `response_items` tables in
 * src/db/schema.ts). Every read names the owner, so another owner's response is not found, and
 * skips what has expired, which the sweep (retention.ts) deletes later. Works the same on
 * PostgreSQL and PGlite.
 */

/** A response to keep: the Response object, the items it continued from, its own input (as JSON texts). */
export type NewResponse = {
  id: string
  owner: string
  createdAt: Date
  expiresAt: Date
  response: JsonObject
  /** JSON of the items carried from `previous_response_id`, a list. */
  context: string
  /** The request's own input items, and each one's JSON. */
  input: StoredItem[]
  inputTexts: string[]
  bytes: number
}

/** What a later request continues from: the conversation before it and its own items, input then output. */
export type Continued = { items: StoredItem[] }

/** A page of a response's input items. */
export type ItemPage = { data: StoredItem[]; hasMore: boolean }

export class ResponseStore {
  constructor(private readonly db: Database) {}

  /** Keeps a response and its items, all or nothing. */
  async save(entry: NewResponse): Promise<void> {
    const output = Array.isArray(entry.response.output) ? (entry.response.output as StoredItem[]) : []
    const rows = [
      ...entry.input.map((item, i) => ({ item, text: entry.inputTexts[i]!, kind: 'input' })),
      ...output.map((item) => ({ item, text: JSON.stringify(item), kind: 'output' })),
    ].map((row, position) => ({
      responseId: entry.id,
      position,
      owner: entry.owner,
      itemId: typeof row.item.id === 'string' ? row.item.id : '',
      kind: row.kind,
      item: row.text,
    }))
    await this.db.transaction(async (tx) => {
      await tx.insert(responses).values({
        id: entry.id,
        owner: entry.owner,
        createdAt: entry.createdAt,
        expiresAt: entry.expiresAt,
        response: JSON.stringify(entry.response),
        context: entry.context,
        bytes: entry.bytes,
      })
      // In slices, well below PostgreSQL's 65,535 parameters a statement.
      for (let at = 0; at < rows.length; at += 1000) await tx.insert(responseItems).values(rows.slice(at, at + 1000))
    })
  }

  /** The Response object, when the owner has it. */
  async response(owner: string, id: string, now: Date): Promise<JsonObject | undefined> {
    const [row] = await this.db
      .select({ response: responses.response })
      .from(responses)
      .where(and(eq(responses.id, id), eq(responses.owner, owner), gt(responses.expiresAt, now)))
    return row && (JSON.parse(row.response) as JsonObject)
  }

  /** The conversation a request naming `id` as its previous response continues: context, input, output. */
  async continued(owner: string, id: string, now: Date): Promise<Continued | undefined> {
    const [row] = await this.db
      .select({ context: responses.context })
      .from(responses)
      .where(and(eq(responses.id, id), eq(responses.owner, owner), gt(responses.expiresAt, now)))
    if (!row) return undefined
    const own = await this.db
      .select({ item: responseItems.item })
      .from(responseItems)
      .where(eq(responseItems.responseId, id))
      .orderBy(asc(responseItems.position))
    const items = JSON.parse(row.context) as StoredItem[]
    for (const { item } of own) items.push(JSON.parse(item) as StoredItem)
    return { items }
  }

  /** The owner's items with these ids (of any of its responses, the newest where one id is in several). */
  async items(owner: string, ids: string[], now: Date): Promise<Map<string, StoredItem>> {
    const rows = await this.db
      .selectDistinctOn([responseItems.itemId], { itemId: responseItems.itemId, item: responseItems.item })
      .from(responseItems)
      .innerJoin(responses, eq(responses.id, responseItems.responseId))
      .where(
        and(
          eq(responseItems.owner, owner),
          inArray(responseItems.itemId, [...new Set(ids)]),
          gt(responses.expiresAt, now),
        ),
      )
      .orderBy(asc(responseItems.itemId), desc(responses.createdAt), desc(responseItems.position))
    return new Map(rows.map((row) => [row.itemId, JSON.parse(row.item) as StoredItem]))
  }

  /**
   * Up to `limit` input items of the owner's response `id`, after the item `after` (in `order`);
   * undefined when the owner has no such response, `after: 'unknown'` when it has no such item.
   */
  async inputItems(
    owner: string,
    id: string,
    page: { limit: number; order: 'asc' | 'desc'; after?: string },
    now: Date,
  ): Promise<ItemPage | 'unknown after' | undefined> {
    const [row] = await this.db
      .select({ id: responses.id })
      .from(responses)
      .where(and(eq(responses.id, id), eq(responses.owner, owner), gt(responses.expiresAt, now)))
    if (!row) return undefined
    const own = and(eq(responseItems.responseId, id), eq(responseItems.kind, 'input'))
    let from: number | undefined
    if (page.after !== undefined) {
      const [found] = await this.db
        .select({ position: min(responseItems.position) })
        .from(responseItems)
        .where(and(own, eq(responseItems.itemId, page.after)))
      if (found?.position == null) return 'unknown after'
      from = found.position
    }
    const ascending = page.order === 'asc'
    const rows = await this.db
      .select({ item: responseItems.item })
      .from(responseItems)
      .where(
        from === undefined
          ? own
          : and(own, ascending ? gt(responseItems.position, from) : lt(responseItems.position, from)),
      )
      .orderBy(ascending ? asc(responseItems.position) : desc(responseItems.position))
      .limit(page.limit + 1)
    return {
      data: rows.slice(0, page.limit).map((found) => JSON.parse(found.item) as StoredItem),
      hasMore: rows.length > page.limit,
    }
  }

  /** Deletes the owner's response `id` and its items; false when it had none. */
  async delete(owner: string, id: string, now: Date): Promise<boolean> {
    const deleted = await this.db
      .delete(responses)
      .where(and(eq(responses.id, id), eq(responses.owner, owner), gt(responses.expiresAt, now)))
      .returning({ id: responses.id })
    return deleted.length > 0
  }

  /** Deletes up to `limit` responses that expired by `now` (their items with them); how many it deleted. */
  async deleteExpired(now: Date, limit: number): Promise<number> {
    const expired = this.db
      .select({ id: responses.id })
      .from(responses)
      .where(lte(responses.expiresAt, now))
      .orderBy(asc(responses.expiresAt))
      .limit(limit)
    const deleted = await this.db
      .delete(responses)
      .where(inArray(responses.id, expired))
      .returning({ id: responses.id })
    return deleted.length
  }
}
