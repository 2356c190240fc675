/**
 * Request generator for the fuzz test: every route of the app, with paths, queries, headers and
 * bodies bent the ways clients and attackers bend them. Deterministic for a seed.
 */
import { random } from '../helpers/random'

export type FuzzRequest = {
  method: string
  path: string
  headers: Record<string, string>
  body?: string | Uint8Array
  label: string
}

type Tokens = { admin: string; plants: string; chat: string; docs: string }

const ROUTES: { method: string; path: string; body?: () => unknown }[] = [
  { method: 'POST', path: '/plants', body: () => ({ name: 'Fern', tag: 'green', id: 42 }) },
  { method: 'GET', path: '/plants' },
  { method: 'DELETE', path: '/plants/{id}' },
  {
    method: 'POST',
    path: '/chat/completions',
    body: () => ({ model: 'echo', messages: [{ role: 'user', content: 'hello there' }] }),
  },
  {
    method: 'POST',
    path: '/v1/chat/completions',
    body: () => ({ model: 'echo-reasoner', stream: true, messages: [{ role: 'user', content: 'hi' }] }),
  },
  { method: 'GET', path: '/models' },
  {
    method: 'POST',
    path: '/v1/messages',
    body: () => ({
      model: 'echo',
      max_tokens: 64,
      system: [{ type: 'text', text: 'be brief' }],
      tools: [{ name: 'f', input_schema: { type: 'object', properties: { a: { type: 'string' } } } }],
      messages: [
        {
          role: 'user',
          content: [
            { type: 'text', text: 'hi' },
            { type: 'image', source: { type: 'url', url: 'https://example.com/a.png' } },
          ],
        },
        {
          role: 'assistant',
          content: [
            { type: 'thinking', thinking: 'hm', signature: '' },
            { type: 'tool_use', id: 't1', name: 'f', input: { a: 'x' } },
          ],
        },
        {
          role: 'user',
          content: [{ type: 'tool_result', tool_use_id: 't1', content: [{ type: 'text', text: 'ok' }] }],
        },
      ],
    }),
  },
  {
    method: 'POST',
    path: '/v1/messages',
    body: () => ({
      model: 'echo-reasoner',
      max_tokens: 2048,
      stream: true,
      thinking: { type: 'enabled', budget_tokens: 1024 },
      tool_choice: { type: 'auto' },
      messages: [{ role: 'user', content: 'hi' }],
    }),
  },
  {
    method: 'POST',
    path: '/v1/messages/count_tokens',
    body: () => ({
      model: 'echo',
      messages: [{ role: 'user', content: 'count' }],
      tools: [{ name: 'g', input_schema: { type: 'object' } }],
      tool_choice: { type: 'tool', name: 'g' },
    }),
  },
  { method: 'GET', path: '/v1/models/{model}' },
  { method: 'GET', path: '/docs.json' },
  {
    method: 'PUT',
    path: '/docs.json',
    body: () => ({ name: 'Docs', navigation: [{ group: 'G', pages: ['a'] }], colors: { primary: '#00aa00' } }),
  },
  {
    method: 'POST',
    path: '/docs.json/validate',
    body: () => ({ name: 'Docs', navigation: [{ group: 'G', pages: ['a'] }] }),
  },
  { method: 'GET', path: '/docs.json/schema' },
  { method: 'GET', path: '/docs.json/revisions' },
  { method: 'GET', path: '/docs.json/revisions/{n}' },
  { method: 'GET', path: '/openapi.json' },
  { method: 'GET', path: '/openapi/assets/{file}' },
  { method: 'GET', path: '/health' },
  { method: 'GET', path: '/ready' },
  { method: 'GET', path: '/{anything}' },
]

const WEIRD_STRINGS = [
  '',
  ' ',
  '0',
  '-1',
  '007',
  '1.5',
  '1e300',
  'NaN',
  'Infinity',
  'null',
  'true',
  '[]',
  '{}',
  '__proto__',
  'constructor',
  'toString',
  '9223372036854775807',
  '9223372036854775808',
  '-9223372036854775809',
  '18446744073709551616',
  '99999999999999999999999999',
  '%00',
  '%2e%2e',
  '..',
  '../../etc/passwd',
  '%',
  '%zz',
  '\u0000',
  '\ud800',
  '\udfff',
  '🌱',
  'é',
  'a'.repeat(5000),
  '<script>alert(1)</script>',
  "' OR 1=1 --",
  '${jndi:x}',
  '\\',
  '"',
  '\r\n',
  'x\r\nX-Injected: 1',
]

const WEIRD_VALUES: unknown[] = [
  null,
  true,
  false,
  0,
  -1,
  1.5,
  1e308,
  -1e308,
  2 ** 53 + 2,
  '',
  'x',
  [],
  {},
  [[[]]],
  { a: { b: { c: {} } } },
  '\u0000',
  '\ud800',
  'a'.repeat(300),
]

/** Raw JSON texts that JSON.parse may round, refuse, or accept in surprising ways. */
const RAW_BODIES = [
  '',
  ' ',
  '{',
  '}',
  '[',
  '{"a":}',
  '{"a":1,}',
  '{"a":1}{"b":2}',
  'null',
  '0',
  '"x"',
  '[1,2]',
  '{"name":1e400}',
  '{"name":"\\ud800"}',
  '{"name":"\\u0000"}',
  '{"id":9007199254740993,"zz":1}',
  '{"id":-0}',
  '{"id":1.0}',
  '{"name":"a","name":"b"}',
  '\ufeff{"name":"bom"}',
  '{"__proto__":{"x":1}}',
  '{"constructor":{"prototype":{}}}',
  '['.repeat(200) + ']'.repeat(200),
  '{"a":'.repeat(300) + '1' + '}'.repeat(300),
  '\u00ff\u00fe',
]

/** encodeURIComponent, except that a lone surrogate (which it refuses) becomes bytes that are not UTF-8 at all. */
const encode = (text: string) =>
  text
    .split(/([\ud800-\udfff])/)
    .map((part) => (/^[\ud800-\udfff]$/.test(part) ? '%ED%A0%80' : encodeURIComponent(part)))
    .join('')

export function generate(seed: number, count: number, tokens: Tokens): FuzzRequest[] {
  const next = random(seed)
  const pick = <T>(items: readonly T[]): T => items[Math.floor(next() * items.length)]!
  const chance = (p: number) => next() < p
  const requests: FuzzRequest[] = []
  for (let i = 0; i < count; i++) {
    const route = pick(ROUTES)
    let path = route.path.replace(/\{(\w+)\}/g, (_, name: string) =>
      encode(
        chance(0.3)
          ? name === 'id' || name === 'n'
            ? String(Math.floor(next() * 10))
            : name === 'model'
              ? 'echo'
              : 'swagger-ui.css'
          : pick(WEIRD_STRINGS),
      ).replace(/%25/g, chance(0.5) ? '%' : '%25'),
    )
    if (chance(0.4)) path += `?${fuzzQuery(pick, chance)}`
    const method = chance(0.1) ? pick(['GET', 'POST', 'PUT', 'DELETE', 'PATCH', 'OPTIONS', 'HEAD']) : route.method
    const headers: Record<string, string> = {}
    const auth = pick([
      'admin',
      'plants',
      'chat',
      'docs',
      'none',
      'garbage',
      'basic',
      'twice',
      'empty',
      'x-api-key',
      'x-api-key and bearer',
    ] as const)
    if (auth in tokens) headers.authorization = `Bearer ${tokens[auth as keyof Tokens]}`
    else if (auth === 'x-api-key')
      headers['x-api-key'] = pick([tokens.chat, tokens.admin, 'sk-ant-api03-x', '', ' ', 'a b', '\u00e9'])
    else if (auth === 'x-api-key and bearer')
      Object.assign(headers, { 'x-api-key': tokens.chat, authorization: `Bearer ${tokens.chat}` })
    else if (auth === 'garbage')
      headers.authorization = `Bearer ${pick(['trl_x', 'x'.repeat(400), 'trl_' + 'A'.repeat(43), '"<>', ''])}`
    else if (auth === 'basic') headers.authorization = 'Basic YTpi'
    else if (auth === 'twice') headers.authorization = `Bearer ${tokens.admin}, Bearer ${tokens.admin}`
    else if (auth === 'empty') headers.authorization = ''
    if (chance(0.7))
      headers['content-type'] = pick([
        'application/json',
        'application/json; charset=utf-8',
        'text/plain',
        'application/x-www-form-urlencoded',
        'application/JSON',
        'multipart/form-data; boundary=x',
        '',
      ])
    if (chance(0.2)) headers['if-match'] = pick(['*', '"r1-0000000000000000"', 'W/"x"', 'garbage', ''])
    if (chance(0.2)) headers['if-none-match'] = pick(['*', '"x"', ''])
    if (chance(0.1)) headers['x-request-id'] = pick(WEIRD_STRINGS).replace(/[\r\n\u0000-\u001f\u007f-\uffff]/g, '')
    let body: string | Uint8Array | undefined
    if (method !== 'GET' && method !== 'HEAD') {
      const kind = next()
      if (kind < 0.45 && route.body) body = JSON.stringify(mutate(route.body(), next, pick, chance, 0, { repeats: 1 }))
      else if (kind < 0.7) body = pick(RAW_BODIES)
      else if (kind < 0.8) body = crypto.getRandomValues(new Uint8Array(Math.floor(next() * 512)))
      else if (kind < 0.9 && route.body) body = JSON.stringify(route.body())
    }
    requests.push({ method, path, headers, body, label: `#${i} ${method} ${path.slice(0, 80)} auth=${auth}` })
  }
  return requests
}

function fuzzQuery(pick: <T>(items: readonly T[]) => T, chance: (p: number) => boolean): string {
  const keys = ['limit', 'after', 'strict', 'owner', 'access_token', 'x', '__proto__', '']
  const parts: string[] = []
  do parts.push(`${encode(pick(keys))}=${encode(pick(WEIRD_STRINGS))}`)
  while (chance(0.4))
  return parts.join('&')
}

/**
 * A body like `value`, with fields dropped, replaced or added at random. One array per body may be
 * blown up to 3,000 copies of its first item (`budget`): two nested blow-ups made 9 million items
 * and three ran the generator out of memory (FUZZ_SEED=27176739), which tests nothing.
 */
function mutate(
  value: unknown,
  next: () => number,
  pick: <T>(items: readonly T[]) => T,
  chance: (p: number) => boolean,
  depth: number,
  budget: { repeats: number },
): unknown {
  if (depth > 6) return value
  if (Array.isArray(value)) {
    const items = value.map((item) => mutate(item, next, pick, chance, depth + 1, budget))
    if (chance(0.1)) items.push(pick(WEIRD_VALUES))
    if (budget.repeats > 0 && chance(0.05)) {
      budget.repeats--
      return Array.from({ length: 3000 }, () => items[0])
    }
    return items
  }
  if (value !== null && typeof value === 'object') {
    const out: Record<string, unknown> = {}
    for (const [key, item] of Object.entries(value)) {
      if (chance(0.1)) continue
      out[key] = chance(0.25) ? pick(WEIRD_VALUES) : mutate(item, next, pick, chance, depth + 1, budget)
    }
    if (chance(0.15))
      out[
        pick([
          'zz',
          'n',
          'top_logprobs',
          'logprobs',
          'max_tokens',
          'tools',
          'response_format',
          'stream_options',
          'id',
          'navigation',
          '__proto__',
          'top_k',
          'thinking',
          'tool_choice',
          'system',
          'stop_sequences',
        ])
      ] = pick([...WEIRD_VALUES, 128, 20, 1_000_000])
    return out
  }
  if (typeof value === 'string' && chance(0.3)) return pick(WEIRD_STRINGS)
  return value
}
