import { join } from 'node:path'
import pkg from '../../package.json' with { type: 'json' }
import { ROOT } from './process'

/**
 * Builds the single-file binary with `bun run build`'s own command line, only the output
 * path changed, so tests exercise exactly what CI ships. Returns the binary's path.
 */
export async function buildBinary(outDir: string): Promise<string> {
  const outfile = join(outDir, 'trellis')
  const command = pkg.scripts.build.replace('dist/trellis', outfile)
  if (command === pkg.scripts.build || !command.includes('--compile'))
    throw new Error(`unexpected build script: ${pkg.scripts.build}`)
  const build = Bun.spawn(['sh', '-c', command], { cwd: ROOT, stdout: 'pipe', stderr: 'pipe' })
  const [stdout, stderr, code] = await Promise.all([
    new Response(build.stdout).text(),
    new Response(build.stderr).text(),
    build.exited,
  ])
  if (code !== 0) throw new Error(`build failed (${code}):\n${stdout}\n${stderr}`)
  return outfile
}
