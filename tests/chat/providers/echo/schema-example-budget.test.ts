import { afterAll, beforeAll, describe, expect, test, setDefaultTimeout } from 'bun:test'
import { ExampleTooLarge, exampleFor } from '../../../../src/chat/providers/echo/schema-example'
import { makeChatApp, USER } from '../../chat-app'

// Each app starts on a fresh database; the first one in a process takes seconds.
setDefaultTimeout(30_000)

/*
 * Issue #11 (OWASP API4): echo's tool arguments and json_schema answers follow minItems and
 * minLength. Before, 290 bytes of schema made 56 MB of answer (410 MB peak), growing as
 * minItems^depth. Now the example is sized while it is made, within the response cap.
 */

/** Arrays of arrays `depth` deep, `minItems` each, around a string of `minLength`. */
function nested(depth: number, minItems: number, minLength = 20): Record<string, unknown> {
  let schema: Record<string, unknown> = { type: 'string', minLength }
  for (let i = 0; i < depth; i++) schema = { type: 'array', minItems, items: schema }
  return { type: 'object', properties: { rows: schema } }
}

const json = (value: unknown) => new TextEncoder().encode(JSON.stringify(value)).length

describe('exampleFor has a byte budget', () => {
  test('its accounting is exact: an example fits a budget of its own size, and not one byte less', () => {
    for (const schema of [
      nested(3, 7, 5),
      {
        type: 'object',
        properties: {
          a: { type: 'string', minLength: 40 },
          ключ: { const: 'ü🌱' },
          n: { type: 'integer', minimum: 12 },
          b: { type: 'boolean' },
          z: { type: 'null' },
          e: { enum: [[1, 2]] },
        },
      },
      { type: 'array', items: { type: 'string', format: 'uuid' }, minItems: 3 },
    ]) {
      const size = json(exampleFor(schema, 'Héllo 🌱'))
      expect(json(exampleFor(schema, 'Héllo 🌱', size))).toBe(size)
      expect(() => exampleFor(schema, 'Héllo 🌱', size - 1)).toThrow(ExampleTooLarge)
    }
  })

  // [case, schema]: each would need far more than 1 MiB, most of them gigabytes.
  const HUGE: [string, unknown][] = [
    ['minItems^depth: 100^4 strings', nested(4, 100)],
    ['one huge minItems', { type: 'array', minItems: 1e12, items: { type: 'boolean' } }],
    ['one huge minLength', { type: 'string', minLength: 2 ** 31 }],
    [
      'many properties of a long string',
      {
        type: 'object',
        properties: Object.fromEntries(
          Array.from({ length: 200 }, (_, i) => [`p${i}`, { type: 'string', minLength: 10_000 }]),
        ),
      },
    ],
  ]

  test.each(HUGE)('%s: refused at once, without allocating it', (_name, schema) => {
    Bun.gc(true)
    const before = process.memoryUsage().rss
    const started = performance.now()
    expect(() => exampleFor(schema, 'hi', 1024 * 1024)).toThrow(ExampleTooLarge)
    expect(performance.now() - started).toBeLessThan(1_000)
    expect(process.memoryUsage().rss - before).toBeLessThan(32 * 1024 * 1024)
  })

  test('array items are one shared value, so a wide example costs what its schema costs', () => {
    const rows = (exampleFor(nested(2, 1_000, 1), 'x') as { rows: string[][] }).rows
    expect(rows).toHaveLength(1_000)
    expect(rows[999]).toHaveLength(1_000)
    expect(rows[0]).toBe(rows[999]!)
  })
})

describe('the route answers 400 naming the schema', () => {
  let app: Awaited<ReturnType<typeof makeChatApp>>
  beforeAll(async () => {
    app = await makeChatApp()
  })
  afterAll(() => app.close())

  // 80^3 strings of 20 characters: about 12 MB of JSON from a schema of under 300 bytes.
  const schema = nested(3, 80)
  const asFormat = {
    model: 'echo',
    messages: USER('hi'),
    response_format: { type: 'json_schema', json_schema: { name: 'rows', schema } },
  }
  const asTool = {
    model: 'echo',
    messages: USER('hi'),
    tools: [{ type: 'function', function: { name: 'fill', parameters: schema } }],
    tool_choice: 'required',
  }
  const asSecondTool = {
    ...asTool,
    tools: [{ type: 'function', function: { name: 'other' } }, ...asTool.tools],
    tool_choice: { type: 'function', function: { name: 'fill' } },
  }

  // [case, body, param]
  const ROWS: [string, Record<string, unknown>, string][] = [
    ['json_schema response_format', asFormat, 'response_format.json_schema.schema'],
    ['json_schema response_format, streamed', { ...asFormat, stream: true }, 'response_format.json_schema.schema'],
    ['a forced tool call', asTool, 'tools[0].function.parameters'],
    ['a forced tool call, streamed', { ...asTool, stream: true }, 'tools[0].function.parameters'],
    ['the second tool, by name', asSecondTool, 'tools[1].function.parameters'],
  ]

  test.each(ROWS)('%s', async (_name, body, param) => {
    expect(JSON.stringify(body).length).toBeLessThan(450)
    Bun.gc(true)
    const before = process.memoryUsage().rss
    const response = await app.chat(body)
    expect(response.status).toBe(400)
    const { error } = (await response.json()) as { error: Record<string, unknown> }
    expect(error).toMatchObject({ type: 'invalid_request_error', param, code: 'response_too_large' })
    expect(error.message).toContain('minItems')
    expect(process.memoryUsage().rss - before).toBeLessThan(64 * 1024 * 1024)
  })

  test('a schema whose example fits is answered as before', async () => {
    const response = await app.chat({
      ...asFormat,
      response_format: { type: 'json_schema', json_schema: { name: 'rows', schema: nested(3, 5) } },
    })
    expect(response.status).toBe(200)
    const { choices } = (await response.json()) as { choices: { message: { content: string } }[] }
    expect(JSON.parse(choices[0]!.message.content).rows).toHaveLength(5)
  })
})
