import { existsSync } from 'node:fs'
import { resolve } from 'node:path'
import { PROVIDER_KINDS } from '../chat/providers'
import { type Config, ConfigError, ConfigFileInvalid, type ConfigOptions, loadConfig } from '../config'

type Io = { stdout: (text: string) => void; stderr: (text: string) => void }

const PROCESS_IO: Io = {
  stdout: (text) => void process.stdout.write(text),
  stderr: (text) => void process.stderr.write(text),
}

/**
 * `trellis config check [FILE]`: loads the configuration as `serve` would (FILE, else `--config`, `TRELLIS_CONFIG` or
 * ./trellis.yaml; the environment over it) and says what is wrong, compiler-style, `file:line:column: error …`.
 *
 * @returns 0 valid, 1 invalid (the file or a variable), 2 bad invocation (a file that does not exist).
 */
export function runConfigCheck(
  file: string | undefined,
  options: ConfigOptions,
  env: Record<string, string | undefined> = process.env,
  io: Io = PROCESS_IO,
): number {
  const named = file ?? options.file
  if (named !== undefined && !existsSync(resolve(options.cwd ?? process.cwd(), named))) {
    io.stderr(`trellis config check: ${named} does not exist\nUsage: trellis config check [FILE]\n`)
    return 2
  }
  let config: Config
  try {
    config = loadConfig(env, PROVIDER_KINDS, { ...options, file: named })
  } catch (error) {
    if (error instanceof ConfigFileInvalid) {
      const count = error.findings.length
      io.stdout(`${error.message}\n${error.file}: invalid, ${count} error${count === 1 ? '' : 's'}\n`)
      return 1
    }
    if (error instanceof ConfigError) {
      io.stdout(`environment: error ${error.message}\n`)
      return 1
    }
    throw error
  }
  const served = `models ${Object.keys(config.chat.models).join(', ')}`
  const providers = Object.keys(config.chat.providers)
  const summary = `${served}${providers.length ? `; providers ${providers.join(', ')}` : ''}`
  if (!config.file) {
    io.stdout(
      `no configuration file (--config, TRELLIS_CONFIG or ./trellis.yaml); the environment is valid: ${summary}\n`,
    )
    return 0
  }
  let output = `${config.file.name}: valid; ${summary}\n`
  for (const { setting, variable } of config.file.overridden)
    output += `note: ${variable} is set, and overrides ${setting} of ${config.file.name}\n`
  io.stdout(output)
  return 0
}
