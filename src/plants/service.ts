import { and, asc, eq, gt, sql } from 'drizzle-orm'
import type { Principal } from '../auth/model'
import type { Database } from '../db/connect'
import { plants } from '../db/schema'
import type { Plant } from './model'

/** Raised when a client-chosen id is already taken by one of the caller's own plants. */
export class DuplicatePlantId extends Error {
  constructor(readonly id: bigint) {
    super(`you already have a plant with id ${id}`)
  }
}

/** Raised when a token that is not an admin names another owner. */
export class NotYourPlants extends Error {
  constructor(readonly owner: string) {
    super(`only an admin token may act on another owner's plants ("${owner}")`)
  }
}

/**
 * Ids assigned by the service come from a sequence; a client may already own the next
 * value, in which case the insert does nothing and the next value is tried. Each try
 * consumes a fresh value, so this ends as soon as a free id is reached.
 */
const MAX_ASSIGN_ATTEMPTS = 1000

export type PlantPage = { plants: Plant[]; next?: string }

/**
 * Builds the hot queries once, as prepared statements: the SQL text is rendered a single
 * time and PostgreSQL plans it once per connection, instead of both on every request.
 */
function statements(db: Database) {
  const owner = sql.placeholder('owner')
  const after = sql.placeholder('after')
  const limit = sql.placeholder('limit')
  const columns = { seq: plants.seq, name: plants.name, tag: plants.tag }
  const newRow = { owner, name: sql.placeholder('name'), tag: sql.placeholder('tag') }
  return {
    listOwn: db
      .select(columns)
      .from(plants)
      .where(and(eq(plants.owner, owner), gt(plants.seq, after)))
      .orderBy(asc(plants.seq))
      .limit(limit)
      .prepare('plants_list_own'),
    listAll: db
      .select(columns)
      .from(plants)
      .where(gt(plants.seq, after))
      .orderBy(asc(plants.seq))
      .limit(limit)
      .prepare('plants_list_all'),
    insertWithId: db
      .insert(plants)
      .values({ ...newRow, id: sql.placeholder('id') })
      .onConflictDoNothing({ target: [plants.owner, plants.id] })
      .returning({ id: plants.id })
      .prepare('plants_insert_with_id'),
    insertAssigned: db
      .insert(plants)
      .values({ ...newRow, id: sql`nextval('plant_id_seq')` })
      .onConflictDoNothing({ target: [plants.owner, plants.id] })
      .returning({ id: plants.id })
      .prepare('plants_insert_assigned'),
    delete: db
      .delete(plants)
      .where(and(eq(plants.owner, owner), eq(plants.id, sql.placeholder('id'))))
      .returning({ seq: plants.seq })
      .prepare('plants_delete'),
  }
}

/** Plant storage with owner-scoped visibility; knows nothing of HTTP. */
export class PlantService {
  private readonly query: ReturnType<typeof statements>

  constructor(db: Database) {
    this.query = statements(db)
  }

  /** Stores a new plant; `id` is the one it got (the client's, or the next free one), for the `Location` header. */
  async create(
    owner: string,
    input: { name: string; tag?: string; id?: bigint },
  ): Promise<{ plant: Plant; id: bigint }> {
    const row = { owner, name: input.name.trim(), tag: input.tag ?? null }
    if (input.id !== undefined) {
      const inserted = await this.query.insertWithId.execute({ ...row, id: input.id })
      if (inserted.length === 0) throw new DuplicatePlantId(input.id)
      return { plant: toPlant(row), id: input.id }
    }
    for (let attempt = 0; attempt < MAX_ASSIGN_ATTEMPTS; attempt++) {
      const [inserted] = await this.query.insertAssigned.execute(row)
      if (inserted) return { plant: toPlant(row), id: inserted.id }
    }
    throw new Error(`no free plant id after ${MAX_ASSIGN_ATTEMPTS} attempts`)
  }

  /** Oldest first. `after` is the cursor of the previous page. Admins see every owner's plants. */
  async list(principal: Principal, limit: number, after = 0n): Promise<PlantPage> {
    const params = { owner: principal.owner, after, limit: limit + 1 }
    const rows = await (principal.isAdmin ? this.query.listAll : this.query.listOwn).execute(params)
    const page = rows.slice(0, limit)
    return { plants: page.map(toPlant), next: rows.length > limit ? String(page[page.length - 1].seq) : undefined }
  }

  /**
   * Deletes the plant with this id among `owner`'s (the caller's own by default; another owner's
   * only for an admin). False when there is none: ids are per owner, so another owner's plant
   * with the same id is simply not the one named.
   */
  async delete(principal: Principal, id: bigint, owner = principal.owner): Promise<boolean> {
    if (owner !== principal.owner && !principal.isAdmin) throw new NotYourPlants(owner)
    const deleted = await this.query.delete.execute({ id, owner })
    return deleted.length > 0
  }
}

function toPlant(row: { name: string; tag: string | null }): Plant {
  return row.tag === null ? { name: row.name } : { name: row.name, tag: row.tag }
}
