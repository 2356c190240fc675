import { and, asc, eq, gt, sql, type SQL } from 'drizzle-orm'
import type { Principal } from '../auth/model'
import type { Database } from '../db/connect'
import { plants } from '../db/schema'
import type { Plant } from './model'

/** Raised when a client-chosen id is already taken. */
export class DuplicatePlantId extends Error {
  constructor(readonly id: bigint) {
    super(`a plant with id ${id} already exists`)
  }
}

/**
 * Ids assigned by the service come from a sequence; a client may already own the next
 * value, in which case the insert does nothing and the next value is tried. Each try
 * consumes a fresh value, so this ends as soon as a free id is reached.
 */
const MAX_ASSIGN_ATTEMPTS = 1000

export type PlantPage = { plants: Plant[]; next?: string }

/** Plant storage with owner-scoped visibility; knows nothing of HTTP. */
export class PlantService {
  constructor(private readonly db: Database) {}

  async create(owner: string, input: { name: string; tag?: string; id?: bigint }): Promise<Plant> {
    const row = { owner, name: input.name.trim(), tag: input.tag ?? null }
    if (input.id !== undefined) {
      const inserted = await this.insert({ ...row, id: input.id })
      if (!inserted) throw new DuplicatePlantId(input.id)
      return toPlant(row)
    }
    for (let attempt = 0; attempt < MAX_ASSIGN_ATTEMPTS; attempt++)
      if (await this.insert({ ...row, id: sql`nextval('plant_id_seq')` })) return toPlant(row)
    throw new Error(`no free plant id after ${MAX_ASSIGN_ATTEMPTS} attempts`)
  }

  /** Oldest first. `after` is the cursor of the previous page. Admins see every owner's plants. */
  async list(principal: Principal, limit: number, after?: bigint): Promise<PlantPage> {
    const conditions: SQL[] = []
    if (!principal.isAdmin) conditions.push(eq(plants.owner, principal.owner))
    if (after !== undefined) conditions.push(gt(plants.seq, after))
    const rows = await this.db
      .select({ seq: plants.seq, name: plants.name, tag: plants.tag })
      .from(plants)
      .where(and(...conditions))
      .orderBy(asc(plants.seq))
      .limit(limit + 1)
    const page = rows.slice(0, limit)
    return { plants: page.map(toPlant), next: rows.length > limit ? String(page[page.length - 1].seq) : undefined }
  }

  /** False when no visible plant has that id: another owner's plant looks exactly like a missing one. */
  async delete(principal: Principal, id: bigint): Promise<boolean> {
    const visible = principal.isAdmin ? eq(plants.id, id) : and(eq(plants.id, id), eq(plants.owner, principal.owner))
    const deleted = await this.db.delete(plants).where(visible).returning({ seq: plants.seq })
    return deleted.length > 0
  }

  private async insert(values: Omit<typeof plants.$inferInsert, 'id'> & { id: bigint | SQL }): Promise<boolean> {
    const inserted = await this.db.insert(plants).values(values).onConflictDoNothing({ target: plants.id }).returning({ seq: plants.seq })
    return inserted.length > 0
  }
}

function toPlant(row: { name: string; tag: string | null }): Plant {
  return row.tag === null ? { name: row.name } : { name: row.name, tag: row.tag }
}
