import type { PGliteOptions } from '@electric-sql/pglite'
import { type SQL, sql } from 'drizzle-orm'
import { PgDialect } from 'drizzle-orm/pg-core'
import type { PgDatabase, PgQueryResultHKT } from 'drizzle-orm/pg-core'
import { boundedClient, withDeadline } from './deadline'
import { rowsOf } from './migrate'
import { unref } from '../timers'
import * as schema from './schema'

/** One type for both backends: the PGlite and postgres.js drizzle instances share this API. */
export type Database = PgDatabase<PgQueryResultHKT, typeof schema>

export type DatabaseHandle = {
  /** For requests: on PostgreSQL each statement is bounded by `queryTimeoutMs` (see deadline.ts). */
  db: Database
  /**
   * The same database without that bound, for migrations: a schema change may take longer than a request should wait.
   */
  unbounded: Database
  kind: 'postgres' | 'pglite'
  /** Resolves when the database answers a trivial query; used by /ready. */
  ping(): Promise<void>
  /** This process's connections: open, and busy with a query (for /metrics). */
  poolStats(): Promise<{ open: number; busy: number }>
  /**
   * Appends `lines` (COPY text: see copy-text.ts) to `table` with one `COPY … FROM STDIN`: all or
   * none. For records that may be lost in a crash (the usage ledger): on PGlite the commit does not
   * wait for the disk, and a synchronous commit within {@link LAZY_FLUSH_MS} makes it durable. With `after`, that
   * statement runs in the same transaction, after the COPY: both or neither.
   */
  copyIn(table: string, columns: readonly string[], lines: readonly string[], after?: SQL): Promise<void>
  close(): Promise<void>
}

export type DatabaseOptions = {
  /** postgres://… → PostgreSQL through postgres.js. */
  url?: string
  /** PGlite data directory; omitted → an in-memory database (tests). */
  dataDir?: string
  poolSize?: number
  /** One connection attempt's limit (default 2 s); see {@link openPostgres}. */
  connectTimeoutMs?: number
  /** Longest pause between reconnection attempts (default 1 s). */
  reconnectMaxMs?: number
  /**
   * Longest wait for PostgreSQL to answer one statement or transaction (default 10 s), after which
   * it is cancelled; see deadline.ts. PGlite runs in this process and needs none.
   */
  queryTimeoutMs?: number
  /** Extra PGlite options, e.g. the wasm module and fs bundle a compiled binary embeds. */
  pglite?: PGliteOptions
}

/**
 * Opens PostgreSQL when a URL is given, an embedded PGlite otherwise. Drivers are loaded
 * lazily so a deployment on one backend never pays the start-up cost of the other.
 */
export async function openDatabase(options: DatabaseOptions): Promise<DatabaseHandle> {
  return options.url ? openPostgres(options.url, options) : openPglite(options)
}

/**
 * postgres.js, with its waits bounded. Its defaults suit a batch job, not a server behind a
 * load balancer: 30 s per connection attempt, and a back-off that grows to 20 s after repeated
 * failures, so a PostgreSQL restart of under a second stalled requests for 5 to 30 s and made
 * `/ready` hang. Here an attempt gives up after `connectTimeoutMs` and reconnection waits at most
 * `reconnectMaxMs` (full jitter from 50 ms doubling), so a request meets a fresh connection or a
 * quick failure, which the routes answer as 503.
 */
async function openPostgres(url: string, options: DatabaseOptions): Promise<DatabaseHandle> {
  const { default: postgres } = await import('postgres')
  const { drizzle } = await import('drizzle-orm/postgres-js')
  const reconnectMaxSeconds = (options.reconnectMaxMs ?? 1_000) / 1000
  // Names this process's connections in pg_stat_activity, which is where the pool's state is read.
  const applicationName = `trellis-${process.pid}-${Math.random().toString(36).slice(2, 8)}`
  const queryTimeoutMs = options.queryTimeoutMs ?? 10_000
  const settings = {
    connection: { application_name: applicationName },
    connect_timeout: (options.connectTimeoutMs ?? 2_000) / 1000,
    backoff: (retries: number) => Math.random() * Math.min(reconnectMaxSeconds, 0.05 * 2 ** retries),
    // Notices ("relation already exists, skipping") are expected during migrations and are not errors.
    onnotice: () => {},
  }
  const client = postgres(url, { ...settings, max: options.poolSize ?? 10 })
  // COPY on a connection of its own. When every connection of a pool is busy, postgres.js pipelines the next query
  // onto one of them; one that lands behind a COPY FROM STDIN reaches the server in the middle of the copy, which is a
  // protocol violation: the server answers 08P01 and closes the connection, so the COPY and every query pipelined there
  // failed (ECONNRESET), and requests were answered 503 by a healthy database (BENCHMARKS.md, "Zero errors at full
  // load"). Nothing but copyIn uses this one, one COPY at a time (`copying`), so nothing can be pipelined behind one.
  const copier = postgres(url, { ...settings, max: 1 })
  // Drizzle sets how a client sends parameters (a jsonb one is text Drizzle renders itself, not a value to encode
  // again), and `after` is rendered by Drizzle: the copier sends them as the pool does.
  drizzle({ client: copier })
  let copying: Promise<unknown> = Promise.resolve()
  const db = drizzle({ client: boundedClient(client, queryTimeoutMs), schema }) as unknown as Database
  return {
    db,
    unbounded: drizzle({ client, schema }) as unknown as Database,
    kind: 'postgres',
    ping: async () => void (await db.execute(sql`select 1`)),
    poolStats: async () => {
      // The connection asking is one of ours too, open and (for this query) busy: counted as open only.
      const [row] = rowsOf<{ open: number; busy: number }>(
        await db.execute(
          sql`select count(*)::int as open, (count(*) filter (where state = 'active'))::int as busy
              from pg_stat_activity where application_name = ${applicationName} and pid <> pg_backend_pid()`,
        ),
      )
      return { open: Number(row?.open ?? 0) + 1, busy: Number(row?.busy ?? 0) }
    },
    copyIn: (table, columns, lines, after) => {
      const run = copying.then(() => copyOnce(table, columns, lines, after))
      copying = run.catch(() => {})
      return run
    },
    // Called after the last request and the ledger's last write, so nothing legitimate is still running.
    // After a PostgreSQL restart, one idle socket sometimes never reports 'close' under Bun, and end()
    // then waited out its whole timeout: the shutdown took 5 s longer (tests/e2e/database-faults.test.ts).
    close: async () => void (await Promise.all([client.end({ timeout: 1 }), copier.end({ timeout: 1 })])),
  }

  /** One COPY (and `after`, in its transaction) on the copier's connection; see copyIn. */
  async function copyOnce(table: string, columns: readonly string[], lines: readonly string[], after?: SQL) {
    if (!after) return copy(copier, table, columns, lines)
    const query = dialect.sqlToQuery(after)
    await withDeadline(
      copier.begin(async (tx) => {
        await copy(tx as unknown as typeof copier, table, columns, lines)
        await tx.unsafe(query.sql, query.params as never[])
      }),
      queryTimeoutMs,
    )
  }

  async function copy(sql: typeof copier, table: string, columns: readonly string[], lines: readonly string[]) {
    const started = sql`copy ${sql(table)} (${sql(columns as string[])}) from stdin`.writable()
    // Should the COPY start after its deadline, nothing will write to it: it is ended at once.
    const writable = await withDeadline(
      started,
      queryTimeoutMs,
      () =>
        void started.then(
          (late) => late.on('error', () => {}).destroy(),
          () => {},
        ),
    )
    // 'finish' comes once the server has confirmed the COPY; a refusal or a lost connection is 'error'.
    const finished = new Promise<void>((resolve, reject) => {
      // `on`, not `once`: a destroyed COPY may report more than one error, and an error with no listener throws.
      writable.on('error', reject)
      writable.once('finish', resolve)
      writable.end(lines.join(''))
    })
    // A frozen server must not hold the ledger (and a shutdown waiting on it) for ever. Should the
    // server commit the COPY after this, the ledger's retry writes those rows a second time.
    await withDeadline(finished, queryTimeoutMs, () => writable.destroy())
  }
}

/** PGlite in `dataDir` with durable commits (see durable-pglite.ts), or in memory (tests) without a directory. */
async function openPglite(options: DatabaseOptions): Promise<DatabaseHandle> {
  const { PGlite } = await import('@electric-sql/pglite')
  const { drizzle } = await import('drizzle-orm/pglite')
  const durable = options.dataDir === undefined ? {} : await durableFiles(options.dataDir)
  const client = await PGlite.create({ ...options.pglite, ...durable })
  const db = drizzle({ client, schema }) as unknown as Database
  let flusher: ReturnType<typeof setTimeout> | undefined
  return {
    db,
    unbounded: db,
    kind: 'pglite',
    ping: async () => void (await db.execute(sql`select 1`)),
    // In process: one connection, and never seen busy from outside a query.
    poolStats: async () => ({ open: client.closed ? 0 : 1, busy: 0 }),
    // PGlite has no client socket to stream COPY data over: it reads the rows from a Blob as /dev/blob.
    // Its durable commit is an fsync that blocks the event loop, every stream with it: the COPY
    // commits asynchronously, and one synchronous commit (which flushes the WAL before it) follows.
    copyIn: async (table, columns, lines, after) => {
      const names = [table, ...columns].map(quoted)
      await client.transaction(async (tx) => {
        await tx.exec('set local synchronous_commit = off')
        await tx.query(`copy ${names[0]} (${names.slice(1).join(', ')}) from '/dev/blob'`, [], {
          blob: new Blob(lines as string[]),
        })
        if (after) {
          const query = dialect.sqlToQuery(after)
          await tx.query(query.sql, query.params)
        }
      })
      flusher ??= unref(
        setTimeout(() => {
          flusher = undefined
          // A synchronous commit that wrote WAL flushes the WAL up to it; a transactional logical message is the smallest
          // such write.
          if (!client.closed) void client.query("select pg_logical_emit_message(true, 'trellis', '')").catch(() => {})
        }, LAZY_FLUSH_MS),
      )
    },
    close: async () => {
      clearTimeout(flusher)
      await client.close()
    },
  }
}

/** Renders a statement for the drivers' own transactions (the COPY's), outside Drizzle. */
const dialect = new PgDialect()

/** Longest a lazily committed COPY on PGlite waits before it is flushed to disk. */
export const LAZY_FLUSH_MS = 1_000

/** A double-quoted SQL identifier. */
const quoted = (name: string) => `"${name.replaceAll('"', '""')}"`

async function durableFiles(dataDir: string) {
  const { DURABLE_START_PARAMS, DurableNodeFS } = await import('./durable-pglite')
  return { fs: new DurableNodeFS(dataDir), startParams: DURABLE_START_PARAMS }
}
