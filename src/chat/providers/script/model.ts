// Plain TypeBox, as in src/config/chat.ts: a scenario that says "3" where a number belongs is corrected, not guessed.
import { Type as t, type Static } from '@sinclair/typebox'
import { Integer } from '../../../http/integer'

/**
 * The scenario of a `script` provider, the single source of its type, its validation (line:column findings, see
 * load.ts) and the JSON Schema published at `GET /v1/scenario.schema.json` and committed as
 * schemas/scenario.schema.json. Semantics are documented in README.md ("The script provider") and in plan.ts.
 */
const Milliseconds = (description: string) => Integer({ minimum: 0, maximum: 600_000, description })
const Count = (description: string) => Integer({ minimum: 0, maximum: 1_000_000, description })

const Match = t.Object(
  {
    model: t.Optional(t.String({ minLength: 1, description: 'The model name the provider is sent, exactly.' })),
    last_user: t.Optional(
      t.String({
        minLength: 1,
        description:
          'Text the last user message contains (case-sensitive), or "/regular expression/flags". Expressions with ' +
          'nested quantifiers are refused, and only the first 16384 characters of the message are searched.',
      }),
    ),
    has_tool_result: t.Optional(
      t.Boolean({
        description: 'Whether a tool result follows the last assistant message (the turn after a tool ran).',
      }),
    ),
    turn: t.Optional(
      Integer({
        minimum: 1,
        description: 'Which answer of the conversation this is: 1 + the number of assistant messages in the request.',
      }),
    ),
    header: t.Optional(
      t.Record(t.String({ minLength: 1 }), t.String(), {
        description: 'Request headers (name, case-insensitive) and the exact value each must have.',
      }),
    ),
  },
  { additionalProperties: false, description: 'Every condition given must hold; none: the rule matches any request.' },
)

const ToolCall = t.Object(
  {
    name: t.String({ minLength: 1, description: 'The function called.' }),
    arguments: t.Optional(
      t.Union([t.Record(t.String(), t.Unknown()), t.String()], {
        description: 'A mapping (sent as its JSON), or the JSON text itself; default {}.',
      }),
    ),
    id: t.Optional(t.String({ minLength: 1, description: 'The call id; default call_<random>.' })),
  },
  { additionalProperties: false },
)

const ScriptedError = t.Object(
  {
    status: Integer({ minimum: 400, maximum: 599, description: 'The HTTP status, e.g. 429, 500, 503, 529, 401.' }),
    message: t.Optional(t.String({ description: "The error's message; default one naming the status." })),
    type: t.Optional(t.String({ minLength: 1, description: "The error's type; default the wire format's own." })),
    code: t.Optional(t.String({ minLength: 1, description: "OpenAI's error code; default the status's." })),
    headers: t.Optional(
      t.Record(t.String({ minLength: 1 }), t.String(), {
        description: 'Response headers, e.g. retry-after: "1" (which also reaches the client as Retry-After).',
      }),
    ),
    body: t.Optional(
      t.Union([t.String(), t.Record(t.String(), t.Unknown())], {
        description: "The whole response body instead of the wire format's error shape (a mapping is sent as JSON).",
      }),
    ),
    retryable: t.Optional(
      t.Boolean({
        description:
          "Let the gateway retry and fall back as on an upstream's failure (default false: it reaches the client).",
      }),
    ),
  },
  { additionalProperties: false },
)

const Usage = t.Object(
  {
    prompt_tokens: t.Optional(Count("Default: the prompt counted by echo's tokenizer.")),
    completion_tokens: t.Optional(Count("Default: the answer's tokens (reasoning, text, refusal, tool arguments).")),
    cached_tokens: t.Optional(Count('Prompt tokens read from a cache (part of prompt_tokens); default 0.')),
    cache_write_tokens: t.Optional(
      Count('Prompt tokens written to a cache (part of prompt_tokens, apart from cached_tokens); default 0.'),
    ),
    reasoning_tokens: t.Optional(Count("Part of completion_tokens; default the reasoning text's tokens.")),
  },
  { additionalProperties: false, description: 'total_tokens is always prompt_tokens + completion_tokens.' },
)

/**
 * One step of a reply. A step does one thing, named by its key; the single exception is `error` beside
 * `error_after_events`, which says what the in-stream error is.
 */
const Step = t.Object(
  {
    text: t.Optional(t.String({ description: 'Answer text, streamed one echo token per event.' })),
    pieces: t.Optional(t.Array(t.String(), { minItems: 1, description: 'Answer text, streamed one piece per event.' })),
    reasoning: t.Optional(
      t.String({ description: 'Reasoning text (reasoning_content, thinking), before the answer.' }),
    ),
    tool_call: t.Optional(ToolCall),
    refusal: t.Optional(t.String({ description: 'A refusal instead of text.' })),
    finish_reason: t.Optional(
      t.Union(
        ['stop', 'length', 'tool_calls', 'content_filter'].map((reason) => t.Literal(reason)),
        { description: 'Default: tool_calls after a tool call, else stop.' },
      ),
    ),
    usage: t.Optional(Usage),
    error: t.Optional(ScriptedError),
    error_after_events: t.Optional(Count('An error event after this many events (with `error`: that error).')),
    disconnect_after_events: t.Optional(Count('The connection cut, without an end, after this many events.')),
    disconnect_after_bytes: t.Optional(Count('The connection cut, without an end, after this many bytes.')),
    stall: t.Optional(t.Boolean({ description: 'true: no event after those before it, and no end.' })),
    ttft_ms: t.Optional(Milliseconds('Wait before the first event.')),
    gap_ms: t.Optional(Milliseconds('Wait between events.')),
    deadline_ms: t.Optional(
      Milliseconds('The answer fails with a 504 (an error event once streaming) if not done by then.'),
    ),
  },
  { additionalProperties: false },
)

const Rule = t.Object(
  {
    name: t.Optional(t.String({ minLength: 1, description: 'Named in messages; default rules[<index>].' })),
    match: t.Optional(Match),
    reply: t.Array(Step, { minItems: 1, description: 'What the rule answers, in order.' }),
  },
  { additionalProperties: false },
)

export const Scenario = t.Object(
  {
    rules: t.Array(Rule, { minItems: 1, maxItems: 10_000, description: 'The first rule that matches answers.' }),
    fallback: t.Optional(
      t.Union([t.Literal('error'), t.Literal('echo')], {
        description: "A request no rule matches: a 400 naming the closest rule (error, the default), or echo's answer.",
      }),
    ),
  },
  { additionalProperties: false, title: 'a scenario' },
)

export type Scenario = Static<typeof Scenario>
export type Rule = Static<typeof Rule>
export type Step = Static<typeof Step>
export type ScriptedError = Static<typeof ScriptedError>

/** The keys that make a step do something; every step has exactly one (see {@link Step}). */
export const STEP_ACTIONS = Object.keys(Step.properties) as (keyof Step)[]
