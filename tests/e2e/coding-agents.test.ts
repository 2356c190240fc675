import { afterAll, beforeAll, describe, expect, setDefaultTimeout, test } from 'bun:test'
import { existsSync, mkdtempSync, readFileSync, rmSync } from 'node:fs'
import { tmpdir } from 'node:os'
import { join } from 'node:path'
import { useMockAnthropic } from '../chat/mock-anthropic'
import { makeTestApp } from '../helpers/app'
import { claudePrint, codexExec } from './agent-clients'

setDefaultTimeout(120_000)

/*
 * Issue #26 §5: the coding agents people run, as processes, against a listening Trellis. Codex CLI
 * speaks only the Responses API; Claude Code speaks Messages with fields of its own
 * (context_management, output_config, system entries inside messages…). Both must finish their
 * first request and exit cleanly, on the offline echo model and, for Claude Code, through an
 * `anthropic` provider in front of a mock Messages upstream.
 */

const anthropic = useMockAnthropic()
let trellis: Awaited<ReturnType<typeof makeTestApp>>
let server: ReturnType<typeof Bun.serve>
let token: string
let base: string

beforeAll(async () => {
  trellis = await makeTestApp({
    env: {
      CHAT_PROVIDERS: JSON.stringify({
        claude: { kind: 'anthropic', baseUrl: anthropic.baseUrl, apiKey: 'sk-ant-upstream', maxRetries: 0 },
      }),
      CHAT_MODELS: JSON.stringify({
        echo: [{ provider: 'echo', model: 'echo' }],
        claude: [{ provider: 'claude', model: 'claude-sonnet-4-5' }],
      }),
    },
    deps: { onLongLivedRequest: (request) => server.timeout(request, 0) },
  })
  token = await trellis.tokenFor('agents', ['chat'])
  server = Bun.serve({ port: 0, hostname: '127.0.0.1', fetch: trellis.app.fetch })
  base = `http://127.0.0.1:${server.port}`
})

afterAll(async () => {
  await server.stop(true)
  await trellis.close()
})

describe('Codex CLI (Responses API)', () => {
  test('codex exec on echo ends 0 with an answer', async () => {
    const run = await codexExec({ baseUrl: `${base}/v1`, token, model: 'echo', prompt: 'Say hi to the plants' })
    expect({ exitCode: run.exitCode, stderr: run.exitCode === 0 ? '' : run.stderr }).toEqual({
      exitCode: 0,
      stderr: '',
    })
    // echo answers with the last user message: the prompt itself.
    expect(run.stdout).toContain('Say hi to the plants')
  })
})

describe('Claude Code (Messages API)', () => {
  test('claude -p on echo: is_error false, with echo answer', async () => {
    const run = await claudePrint({ baseUrl: base, token, model: 'echo', prompt: 'Say hi to the plants' })
    expect(run.json, run.stderr + run.stdout).toBeDefined()
    expect(run.json!.is_error).toBe(false)
    expect(run.json!.result).toContain('Say hi to the plants')
    expect(run.exitCode).toBe(0)
  })

  test('claude -p through an anthropic provider: the upstream gets Claude Code request as sent, the answer comes back', async () => {
    anthropic.script({ blocks: [{ type: 'text', text: ['Hello ', 'from upstream'] }] })
    const run = await claudePrint({ baseUrl: base, token, model: 'claude', prompt: 'Say hi' })
    expect(run.json, run.stderr + run.stdout).toBeDefined()
    expect(run.json!.is_error).toBe(false)
    expect(run.json!.result).toBe('Hello from upstream')
    const sent = anthropic.requests.at(-1)!
    expect(sent.body.model).toBe('claude-sonnet-4-5')
    // Claude Code's own fields reach a native upstream unchanged.
    expect(sent.body.context_management ?? sent.body.output_config).toBeDefined()
    expect(sent.headers.get('anthropic-beta')).toContain('claude-code-')
  })

  test('claude -p runs a tool the upstream asks for (Write) and sends its result back', async () => {
    const work = mkdtempSync(join(tmpdir(), 'trellis-claude-work-'))
    try {
      const file = join(work, 'hello.txt')
      anthropic.script(
        {
          blocks: [
            { type: 'text', text: 'Writing it.' },
            {
              type: 'tool_use',
              id: 'toolu_01',
              name: 'Write',
              input: JSON.stringify({ file_path: file, content: 'hi\n' }),
            },
          ],
        },
        { blocks: [{ type: 'text', text: 'Done: wrote hello.txt' }] },
      )
      const run = await claudePrint({
        baseUrl: base,
        token,
        model: 'claude',
        prompt: 'Write hi to hello.txt',
        extraArgs: ['--allowedTools', 'Write'],
        cwd: work,
      })
      expect(run.json, run.stderr + run.stdout).toBeDefined()
      expect(run.json!.is_error).toBe(false)
      expect(run.json!.result).toBe('Done: wrote hello.txt')
      expect(existsSync(file) && readFileSync(file, 'utf8')).toBe('hi\n')
      const followUp = anthropic.requests.at(-1)!.body.messages as { role: string; content: unknown }[]
      const last = followUp.at(-1)!
      expect(last.role).toBe('user')
      expect(JSON.stringify(last.content)).toContain('"tool_use_id":"toolu_01"')
    } finally {
      rmSync(work, { recursive: true, force: true })
    }
  })
})
