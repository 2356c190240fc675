/**
 * `trellis serve --workers N`: N copies of this process share one port through
 * SO_REUSEPORT, so the kernel spreads connections across them. The parent only
 * supervises: it migrates once before they start, forwards SIGTERM/SIGINT and exits when every worker has.
 * Requires PostgreSQL (checked in config): PGlite cannot be opened by two processes.
 */
export async function runWorkers(count: number): Promise<number> {
  // From source (`bun src/cli.ts`) the script path comes along; a compiled binary is its own script.
  const script = process.argv[1]
  const command = script && /\.(ts|js)$/.test(script) && !script.startsWith('/$bunfs/') ? [process.execPath, script, 'serve'] : [process.execPath, 'serve']
  const children = Array.from({ length: count }, (_, index) =>
    Bun.spawn(command, {
      // The parent already migrated and announced any development token; workers only serve.
      env: { ...process.env, WORKERS: String(count), TRELLIS_WORKER: String(index + 1), MIGRATE_ON_START: 'false' },
      stdio: ['ignore', 'inherit', 'inherit'],
    }),
  )
  for (const signal of ['SIGTERM', 'SIGINT'] as const) process.on(signal, () => children.forEach((child) => child.kill(signal)))
  const codes = await Promise.all(children.map((child) => child.exited))
  return codes.find((code) => code !== 0) ?? 0
}
