import { join } from 'node:path'
import type { Subprocess } from 'bun'
import { TokenService } from '../src/auth/service'
import { openDatabase } from '../src/db/connect'
import { migrate } from '../src/db/migrate'
import { plants } from '../src/db/schema'

/**
 * The plant store's benchmark database (bench/plants.ts, bench/profile-plants.ts): migrated, 1,000 plants of owner
 * `bench`, and a token of that owner that reads and writes them, whose secret is returned.
 */
export async function seedPlantStore(url: string): Promise<string> {
  const database = await openDatabase({ url })
  try {
    await migrate(database.db)
    const { token } = await new TokenService(database.db).create({
      owner: 'bench',
      scopes: ['plants:read', 'plants:write'],
    })
    await database.db
      .insert(plants)
      .values(
        Array.from({ length: 1000 }, (_, i) => ({ id: BigInt(i + 1), owner: 'bench', name: `seed ${i}`, tag: 'seed' })),
      )
    return token
  } finally {
    await database.close()
  }
}

/**
 * Starts a plant store server (Trellis or the raw floor) from the repository root and waits until it answers at `url`:
 * any status under 500 on `/health` (the floor has no such route and answers 404).
 */
export async function startPlantServer(
  command: string[],
  env: Record<string, string | undefined>,
  url: string,
): Promise<Subprocess> {
  const child = Bun.spawn(command, { cwd: join(import.meta.dir, '..'), env, stdout: 'ignore', stderr: 'inherit' })
  for (let i = 0; i < 200; i++) {
    try {
      if ((await fetch(`${url}/health`)).status < 500) return child
    } catch {}
    await Bun.sleep(50)
  }
  child.kill()
  throw new Error(`${command.join(' ')} did not start`)
}
