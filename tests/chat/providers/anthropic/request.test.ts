/**
 * OpenAI request → Messages request, checked on what the mock Anthropic upstream received; and
 * the parameters Anthropic has no equivalent for, refused with a 400 naming them (issue #15 §1).
 */
import { describe, expect, setDefaultTimeout, test } from 'bun:test'
import { PROVIDER_DEFAULTS } from '../../../../src/config/chat'
import { anthropicProvider, type AnthropicProviderOptions } from '../../../../src/chat/providers/anthropic/anthropic'
import { ProviderError, type ChatRequest } from '../../../../src/chat/providers/provider'
import { useMockAnthropic } from '../../mock-anthropic'

// bun applies the preload's default timeout to the first file only (tests/setup.ts).
setDefaultTimeout(30_000)

const anthropic = useMockAnthropic()

const provider = (options: Partial<AnthropicProviderOptions> = {}) =>
  anthropicProvider({ ...PROVIDER_DEFAULTS, name: 'claude', baseUrl: anthropic.baseUrl, ...options })

const hi = [{ role: 'user', content: 'hi' }]
const text = (value: string) => ({ type: 'text', text: value })
const PNG = 'iVBORw0KGgo='
const tool = {
  type: 'function',
  function: {
    name: 'get_weather',
    description: 'Weather',
    parameters: { type: 'object', properties: { city: { type: 'string' } } },
  },
}

/** What Anthropic is sent for a request: `expected` must equal the received body, `model` and `max_tokens` included. */
const TRANSLATIONS: {
  name: string
  request: Partial<ChatRequest> & Record<string, unknown>
  expected: Record<string, unknown>
  options?: Partial<AnthropicProviderOptions>
}[] = [
  {
    name: 'a plain question: text blocks, the default max_tokens',
    request: { messages: hi },
    expected: { model: 'm', messages: [{ role: 'user', content: [text('hi')] }], max_tokens: 4096 },
  },
  {
    name: 'system and developer messages become system, wherever they stood',
    request: {
      messages: [
        { role: 'system', content: 'Be brief.' },
        { role: 'user', content: 'hi' },
        { role: 'developer', content: [{ type: 'text', text: 'No emoji.' }] },
      ],
    },
    expected: {
      model: 'm',
      system: [text('Be brief.'), text('No emoji.')],
      messages: [{ role: 'user', content: [text('hi')] }],
      max_tokens: 4096,
    },
  },
  {
    name: 'consecutive turns of one role are merged',
    request: {
      messages: [
        { role: 'user', content: 'one' },
        { role: 'user', content: [{ type: 'text', text: 'two' }] },
        { role: 'assistant', content: 'three' },
        { role: 'assistant', content: 'four' },
        { role: 'user', content: 'five' },
      ],
    },
    expected: {
      model: 'm',
      messages: [
        { role: 'user', content: [text('one'), text('two')] },
        { role: 'assistant', content: [text('three'), text('four')] },
        { role: 'user', content: [text('five')] },
      ],
      max_tokens: 4096,
    },
  },
  {
    name: 'tool calls become tool_use blocks, tool results one user turn of tool_result blocks',
    request: {
      messages: [
        { role: 'user', content: 'Weather in Lisbon and Porto?' },
        {
          role: 'assistant',
          content: '',
          tool_calls: [
            { id: 'toolu_1', type: 'function', function: { name: 'get_weather', arguments: '{"city":"Lisbon"}' } },
            { id: 'toolu_2', type: 'function', function: { name: 'get_weather', arguments: '' } },
          ],
        },
        { role: 'tool', tool_call_id: 'toolu_1', content: 'sunny' },
        { role: 'tool', tool_call_id: 'toolu_2', content: [{ type: 'text', text: 'rain' }] },
        { role: 'user', content: 'Thanks' },
      ],
    },
    expected: {
      model: 'm',
      messages: [
        { role: 'user', content: [text('Weather in Lisbon and Porto?')] },
        {
          role: 'assistant',
          content: [
            { type: 'tool_use', id: 'toolu_1', name: 'get_weather', input: { city: 'Lisbon' } },
            { type: 'tool_use', id: 'toolu_2', name: 'get_weather', input: {} },
          ],
        },
        {
          role: 'user',
          content: [
            { type: 'tool_result', tool_use_id: 'toolu_1', content: 'sunny' },
            { type: 'tool_result', tool_use_id: 'toolu_2', content: [text('rain')] },
            text('Thanks'),
          ],
        },
      ],
      max_tokens: 4096,
    },
  },
  {
    name: "an earlier answer's reasoning_content is not sent back",
    request: {
      messages: [
        { role: 'user', content: 'a' },
        { role: 'assistant', content: 'b', reasoning_content: 'thought' },
        { role: 'user', content: 'c' },
      ],
    },
    expected: {
      model: 'm',
      messages: [
        { role: 'user', content: [text('a')] },
        { role: 'assistant', content: [text('b')] },
        { role: 'user', content: [text('c')] },
      ],
      max_tokens: 4096,
    },
  },
  {
    name: 'tools and tool_choice required → any',
    request: { messages: hi, tools: [tool], tool_choice: 'required' },
    expected: {
      model: 'm',
      messages: [{ role: 'user', content: [text('hi')] }],
      max_tokens: 4096,
      tools: [
        {
          name: 'get_weather',
          description: 'Weather',
          input_schema: { type: 'object', properties: { city: { type: 'string' } } },
        },
      ],
      tool_choice: { type: 'any' },
    },
  },
  ...(
    [
      ['none', { type: 'none' }],
      ['auto', { type: 'auto' }],
      [
        { type: 'function', function: { name: 'get_weather' } },
        { type: 'tool', name: 'get_weather' },
      ],
    ] as const
  ).map(([choice, expected]) => ({
    name: `tool_choice ${JSON.stringify(choice)}`,
    request: { messages: hi, tools: [tool], tool_choice: choice as never },
    expected: { tool_choice: expected },
  })),
  {
    name: 'parallel_tool_calls false → disable_parallel_tool_use, with or without a tool_choice',
    request: { messages: hi, tools: [tool], parallel_tool_calls: false },
    expected: { tool_choice: { type: 'auto', disable_parallel_tool_use: true } },
  },
  {
    name: 'parallel_tool_calls false beside required',
    request: { messages: hi, tools: [tool], tool_choice: 'required', parallel_tool_calls: false },
    expected: { tool_choice: { type: 'any', disable_parallel_tool_use: true } },
  },
  {
    name: 'a function tool without parameters gets an empty object schema; strict is kept',
    request: { messages: hi, tools: [{ type: 'function', function: { name: 'now', strict: true } }] },
    expected: { tools: [{ name: 'now', input_schema: { type: 'object', properties: {} }, strict: true }] },
  },
  { name: 'stop as a string', request: { messages: hi, stop: 'END' }, expected: { stop_sequences: ['END'] } },
  { name: 'stop as a list', request: { messages: hi, stop: ['a', 'b'] }, expected: { stop_sequences: ['a', 'b'] } },
  { name: 'max_tokens', request: { messages: hi, max_tokens: 100 }, expected: { max_tokens: 100 } },
  {
    name: 'max_completion_tokens wins over max_tokens',
    request: { messages: hi, max_tokens: 100, max_completion_tokens: 200 },
    expected: { max_tokens: 200 },
  },
  {
    name: "the provider's defaultMaxTokens",
    request: { messages: hi },
    expected: { max_tokens: 1000 },
    options: { defaultMaxTokens: 1000 },
  },
  {
    name: 'temperature, top_p and top_k',
    request: { messages: hi, temperature: 0.5, top_p: 0.9, top_k: 40 },
    expected: { temperature: 0.5, top_p: 0.9, top_k: 40 },
  },
  {
    name: 'harmless defaults are accepted and not sent',
    request: {
      messages: hi,
      n: 1,
      frequency_penalty: 0,
      presence_penalty: 0,
      logprobs: false,
      logit_bias: {},
      store: false,
      top_logprobs: 0,
      seed: null,
    },
    expected: { model: 'm', messages: [{ role: 'user', content: [text('hi')] }], max_tokens: 4096 },
  },
  {
    name: 'user → metadata.user_id',
    request: { messages: hi, user: 'u-42' },
    expected: { metadata: { user_id: 'u-42' } },
  },
  {
    name: 'response_format json_schema → output_config.format; text is the default',
    request: {
      messages: hi,
      response_format: {
        type: 'json_schema',
        json_schema: { name: 'city', schema: { type: 'object', properties: { name: { type: 'string' } } } },
      },
    },
    expected: {
      output_config: {
        format: { type: 'json_schema', schema: { type: 'object', properties: { name: { type: 'string' } } } },
      },
    },
  },
  {
    name: 'images: a data URL → base64 source, an http URL → url source',
    request: {
      messages: [
        {
          role: 'user',
          content: [
            { type: 'text', text: 'Compare' },
            { type: 'image_url', image_url: { url: `data:image/png;base64,${PNG}` } },
            { type: 'image_url', image_url: { url: 'https://example.com/cat.jpg', detail: 'high' } },
          ],
        },
      ],
    },
    expected: {
      messages: [
        {
          role: 'user',
          content: [
            text('Compare'),
            { type: 'image', source: { type: 'base64', media_type: 'image/png', data: PNG } },
            { type: 'image', source: { type: 'url', url: 'https://example.com/cat.jpg' } },
          ],
        },
      ],
    },
  },
  {
    name: 'reasoning_effort → a thinking budget on top of the default max_tokens',
    request: { messages: hi, reasoning_effort: 'medium' },
    expected: { thinking: { type: 'enabled', budget_tokens: 8192 }, max_tokens: 4096 + 8192 },
  },
  {
    name: 'reasoning_effort with a client limit: the budget shrinks to fit under it',
    request: { messages: hi, reasoning_effort: 'high', max_tokens: 5000 },
    expected: { thinking: { type: 'enabled', budget_tokens: 4999 }, max_tokens: 5000 },
  },
  {
    name: "the provider's thinkingBudgetTokens",
    request: { messages: hi },
    expected: { thinking: { type: 'enabled', budget_tokens: 3000 }, max_tokens: 4096 + 3000 },
    options: { thinkingBudgetTokens: 3000 },
  },
  {
    name: "reasoning_effort overrides the provider's budget",
    request: { messages: hi, reasoning_effort: 'minimal' },
    expected: { thinking: { type: 'enabled', budget_tokens: 1024 } },
    options: { thinkingBudgetTokens: 3000 },
  },
  {
    name: "reasoning_effort none turns the provider's thinking off",
    request: { messages: hi, reasoning_effort: 'none' },
    expected: { model: 'm', messages: [{ role: 'user', content: [text('hi')] }], max_tokens: 4096 },
    options: { thinkingBudgetTokens: 3000 },
  },
  {
    name: "the provider's thinking is skipped when the client's limit leaves no room for it",
    request: { messages: hi, max_tokens: 500 },
    expected: { model: 'm', messages: [{ role: 'user', content: [text('hi')] }], max_tokens: 500 },
    options: { thinkingBudgetTokens: 3000 },
  },
]

describe('OpenAI request → Messages request', () => {
  for (const { name, request, expected, options } of TRANSLATIONS) {
    test(name, async () => {
      await provider(options).complete({ model: 'm', ...request } as ChatRequest, new AbortController().signal)
      const sent = anthropic.requests[0]!.body
      // Rows that name every field compare whole; others only the fields they are about.
      if ('model' in expected) expect(sent).toEqual(expected)
      else expect(sent).toMatchObject(expected)
    })
  }

  test('a stream asks for a stream; stream_options stays ours', async () => {
    for await (const _ of provider().stream(
      { model: 'm', messages: hi, stream: true, stream_options: { include_usage: true } },
      new AbortController().signal,
    ));
    expect(anthropic.requests[0]!.body).toEqual({
      model: 'm',
      messages: [{ role: 'user', content: [text('hi')] }],
      max_tokens: 4096,
      stream: true,
    })
  })
})

/** Requests refused before anything goes upstream: the `param` named, and a fragment of the message. */
const REFUSED: { request: Record<string, unknown>; param: string; message: string }[] = [
  { request: { logprobs: true }, param: 'logprobs', message: 'no equivalent' },
  { request: { top_logprobs: 3 }, param: 'top_logprobs', message: 'no equivalent' },
  { request: { n: 2 }, param: 'n', message: 'no equivalent' },
  { request: { frequency_penalty: 0.5 }, param: 'frequency_penalty', message: 'no equivalent' },
  { request: { presence_penalty: -1 }, param: 'presence_penalty', message: 'no equivalent' },
  { request: { logit_bias: { '50256': -100 } }, param: 'logit_bias', message: 'no equivalent' },
  { request: { seed: 7 }, param: 'seed', message: 'no equivalent' },
  { request: { store: true }, param: 'store', message: 'no equivalent' },
  { request: { modalities: ['text', 'audio'] }, param: 'modalities', message: 'no equivalent' },
  { request: { audio: { voice: 'alloy', format: 'mp3' } }, param: 'audio', message: 'no equivalent' },
  { request: { service_tier: 'flex' }, param: 'service_tier', message: 'no equivalent' },
  { request: { prediction: { type: 'content', content: 'x' } }, param: 'prediction', message: 'no equivalent' },
  { request: { functions: [{ name: 'f' }] }, param: 'functions', message: 'no equivalent' },
  { request: { some_vendor_field: true }, param: 'some_vendor_field', message: "'some_vendor_field' is not supported" },
  { request: { temperature: 1.5 }, param: 'temperature', message: 'between 0 and 1' },
  { request: { response_format: { type: 'json_object' } }, param: 'response_format', message: 'json_schema' },
  {
    request: { reasoning_effort: 'extreme' },
    param: 'reasoning_effort',
    message: 'must be one of none, minimal, low, medium, high, xhigh',
  },
  {
    request: { reasoning_effort: 'low', max_completion_tokens: 1000 },
    param: 'max_completion_tokens',
    message: 'must be more than 1024',
  },
  { request: { tool_choice: 'sometimes' }, param: 'tool_choice', message: 'none, auto, required' },
  {
    request: { tools: [{ type: 'custom', custom: { name: 'x' } }] },
    param: 'tools[0]',
    message: "only 'function' tools",
  },
  {
    request: { messages: [{ role: 'user', content: 'hi', name: 'alice' }] },
    param: 'messages[0].name',
    message: "'name' has no equivalent",
  },
  {
    request: {
      messages: [{ role: 'user', content: [{ type: 'input_audio', input_audio: { data: '', format: 'wav' } }] }],
    },
    param: 'messages[0].content[0]',
    message: "'input_audio' part",
  },
  {
    request: {
      messages: [{ role: 'user', content: [{ type: 'image_url', image_url: { url: 'data:image/bmp;base64,Qk0=' } }] }],
    },
    param: 'messages[0].content[0].image_url',
    message: "'image/bmp'",
  },
  {
    request: {
      messages: [{ role: 'user', content: [{ type: 'image_url', image_url: { url: 'ftp://example.com/a.png' } }] }],
    },
    param: 'messages[0].content[0].image_url',
    message: 'base64 data URL or an http(s) URL',
  },
  {
    request: {
      messages: [
        {
          role: 'assistant',
          content: null,
          tool_calls: [{ id: 't', type: 'function', function: { name: 'f', arguments: '{oops' } }],
        },
      ],
    },
    param: 'messages[0].tool_calls[0].function.arguments',
    message: 'JSON object',
  },
  {
    request: {
      messages: [
        {
          role: 'assistant',
          content: null,
          tool_calls: [{ id: 't', type: 'function', function: { name: 'f', arguments: '[1]' } }],
        },
      ],
    },
    param: 'messages[0].tool_calls[0].function.arguments',
    message: 'JSON object',
  },
]

describe('parameters Anthropic cannot honour are a 400 naming them', () => {
  for (const { request, param, message } of REFUSED) {
    test(`${JSON.stringify(request)} → 400 param ${param}`, async () => {
      const signal = new AbortController().signal
      const full = { model: 'm', messages: hi, ...request } as ChatRequest
      const errors = [
        await provider()
          .complete(full, signal)
          .catch((caught: unknown) => caught),
        await (async () => {
          for await (const _ of provider().streamEvents({ ...full, stream: true }, signal));
        })().catch((caught: unknown) => caught),
      ]
      for (const error of errors) {
        expect(error).toBeInstanceOf(ProviderError)
        expect((error as ProviderError).status).toBe(400)
        expect((error as ProviderError).options).toMatchObject({ type: 'invalid_request_error', param })
        expect((error as ProviderError).options.retryable).toBeFalsy()
        expect((error as ProviderError).message).toContain(message)
      }
      expect(anthropic.requests).toHaveLength(0)
    })
  }
})
