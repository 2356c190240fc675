import { mkdirSync, mkdtempSync, rmSync, writeFileSync } from 'node:fs'
import { tmpdir } from 'node:os'
import { join } from 'node:path'
import { ROOT } from '../helpers/process'

/*
 * The coding agents people run, as processes: Codex CLI and Claude Code, from the binaries their npm
 * packages ship (devDependencies). Each run gets a home of its own and nothing but the environment
 * it needs, so that neither reaches past the Trellis it is pointed at (see the README, "Coding agents").
 */

const BIN = join(ROOT, 'node_modules', '.bin')

export type AgentRun = { exitCode: number; stdout: string; stderr: string }

/** A scratch directory removed by `cleanup`. */
function scratch(prefix: string): { dir: string; cleanup: () => void } {
  const dir = mkdtempSync(join(tmpdir(), prefix))
  return { dir, cleanup: () => rmSync(dir, { recursive: true, force: true }) }
}

async function run(command: string[], env: Record<string, string>, cwd: string, timeoutMs: number): Promise<AgentRun> {
  const child = Bun.spawn(command, {
    cwd,
    env: { PATH: process.env.PATH ?? '/usr/bin:/bin', ...env },
    stdin: 'ignore',
    stdout: 'pipe',
    stderr: 'pipe',
  })
  const timer = setTimeout(() => child.kill('SIGKILL'), timeoutMs)
  const [stdout, stderr, exitCode] = await Promise.all([
    new Response(child.stdout).text(),
    new Response(child.stderr).text(),
    child.exited,
  ])
  clearTimeout(timer)
  return { exitCode, stdout, stderr }
}

/**
 * `codex exec` against `baseUrl` (Trellis's `/v1`), speaking the Responses API: a model provider of
 * its own with `wire_api = "responses"`, no approvals, no update check, no analytics, and the
 * features that would look up GitHub turned off.
 */
export async function codexExec(
  options: { baseUrl: string; token: string; model: string; prompt: string; extraArgs?: string[] },
  timeoutMs = 60_000,
): Promise<AgentRun & { workdir: string }> {
  const home = scratch('trellis-codex-')
  const work = join(home.dir, 'work')
  mkdirSync(work)
  writeFileSync(
    join(home.dir, 'config.toml'),
    [
      `model = "${options.model}"`,
      'model_provider = "trellis"',
      'approval_policy = "never"',
      'sandbox_mode = "workspace-write"',
      'check_for_update_on_startup = false',
      '',
      '[model_providers.trellis]',
      'name = "Trellis"',
      `base_url = "${options.baseUrl}"`,
      'env_key = "TRELLIS_TOKEN"',
      'wire_api = "responses"',
      'request_max_retries = 0',
      'stream_max_retries = 0',
      '',
      '[analytics]',
      'enabled = false',
      '[feedback]',
      'enabled = false',
      '[otel]',
      'exporter = "none"',
      '[features]',
      'plugins = false',
      'remote_plugin = false',
      '',
    ].join('\n'),
  )
  try {
    const result = await run(
      [join(BIN, 'codex'), 'exec', '--skip-git-repo-check', ...(options.extraArgs ?? []), options.prompt],
      { CODEX_HOME: home.dir, HOME: home.dir, TRELLIS_TOKEN: options.token },
      work,
      timeoutMs,
    )
    return { ...result, workdir: work }
  } finally {
    home.cleanup()
  }
}

/** What `claude -p … --output-format json` prints: the fields these tests read. */
export type ClaudeResult = { is_error: boolean; result: string; num_turns?: number; subtype?: string }

/**
 * `claude -p <prompt> --output-format json` against `baseUrl` (Trellis's root: Claude Code adds
 * `/v1/messages`), with the token as its API key, a fresh home, and no traffic but to Trellis.
 */
export async function claudePrint(
  options: { baseUrl: string; token: string; model: string; prompt: string; extraArgs?: string[]; cwd?: string },
  timeoutMs = 60_000,
): Promise<AgentRun & { json: ClaudeResult | undefined }> {
  const home = scratch('trellis-claude-')
  try {
    const result = await run(
      [
        join(BIN, 'claude'),
        '-p',
        options.prompt,
        '--output-format',
        'json',
        '--model',
        options.model,
        ...(options.extraArgs ?? []),
      ],
      {
        HOME: home.dir,
        ANTHROPIC_BASE_URL: options.baseUrl,
        ANTHROPIC_API_KEY: options.token,
        CLAUDE_CODE_DISABLE_NONESSENTIAL_TRAFFIC: '1',
        DISABLE_TELEMETRY: '1',
        DISABLE_AUTOUPDATER: '1',
        DISABLE_ERROR_REPORTING: '1',
        CLAUDE_CODE_MAX_RETRIES: '0',
      },
      options.cwd ?? home.dir,
      timeoutMs,
    )
    let json: ClaudeResult | undefined
    try {
      json = JSON.parse(result.stdout.trim().split('\n').at(-1) ?? '') as ClaudeResult
    } catch {
      json = undefined
    }
    return { ...result, json }
  } finally {
    home.cleanup()
  }
}
