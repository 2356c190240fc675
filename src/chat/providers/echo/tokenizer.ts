/*
 * The echo provider's tokenizer and prompt cache. Deliberately simple and documented, so
 * that a test (or a curious client) can compute every usage number by hand.
 *
 * Token rule: a token is a run of letters, marks, digits or `_`, or one other visible
 * character, each together with the whitespace that precedes it; whitespace at the very
 * end of a text is a token of its own. Concatenating the tokens gives back the text.
 *
 *   tokenize('Hello, world!\n') → ['Hello', ',', ' world', '!', '\n']
 */
const TOKEN = /\s*[\p{L}\p{M}\p{N}_]+|\s*[^\s\p{L}\p{M}\p{N}_]|\s+/gu
const NEXT_TOKEN = new RegExp(TOKEN.source, 'uy')

/** Splits a text into the echo provider's tokens (see the rule above). */
export function tokenize(text: string): string[] {
  return text.match(TOKEN) ?? []
}

/**
 * The token that starts at `at` in `text`, or undefined at its end. Tokens cover the text without
 * gaps, so the next one starts at `at + token.length`. One shared sticky copy of TOKEN serves
 * every caller (it is positioned before each match), instead of the regex clone and iterator
 * `matchAll` makes per call, which a held stream would keep for its life.
 */
export function tokenAt(text: string, at: number): string | undefined {
  return at < text.length ? text.slice(at, tokenEnd(text, at)) : undefined
}

/**
 * The longest prefix of `text` holding at most `limit` tokens, how many tokens it holds,
 * and whether tokens were left out. Tokens cover the text without gaps, so the prefix is
 * exactly those tokens joined. Counted with the sticky regex: no string or match per token.
 */
export function leadingTokens(text: string, limit: number): { text: string; count: number; cut: boolean } {
  let count = 0
  let end = 0
  while (end < text.length) {
    if (count === limit) return { text: text.slice(0, end), count, cut: true }
    end = tokenEnd(text, end)
    count++
  }
  return { text, count, cut: false }
}

/**
 * Where the token that starts at `at` ends; `at < text.length`. test() rather than exec(): no match array per token.
 */
function tokenEnd(text: string, at: number): number {
  NEXT_TOKEN.lastIndex = at
  NEXT_TOKEN.test(text)
  // Every position starts a token (see the rule), so the match never fails; guard anyway.
  return NEXT_TOKEN.lastIndex > at ? NEXT_TOKEN.lastIndex : text.length
}

/** The parts of a message the prompt tokens are counted from. */
export type PromptMessage = {
  role: string
  content?: unknown
  tool_calls?: { function: { name: string; arguments: string } }[] | null
}

/** The text of a message content: a string, or the `text` of its text parts joined by newlines. */
export function contentText(content: unknown): string {
  if (typeof content === 'string') return content
  if (!Array.isArray(content)) return ''
  return content
    .filter((part): part is { type: 'text'; text: string } => part?.type === 'text' && typeof part.text === 'string')
    .map((part) => part.text)
    .join('\n')
}

/**
 * The prompt as the echo provider counts it: the tools' JSON (if any), then for each message
 * a `<|role|>` marker token followed by the tokens of its text and of its tool calls'
 * names and arguments. `usage.prompt_tokens` is the number of tokens.
 *
 * Kept as the pieces' text joined and where each token ends in it, rather than a string per
 * token: that is all the prompt cache needs (see `sharedTokens`), and a held stream's request
 * would otherwise leave hundreds of small strings behind.
 */
export type Prompt = { text: string; ends: Uint32Array }

export function promptOf(messages: PromptMessage[], tools?: unknown[] | null): Prompt {
  const builder = new PromptBuilder()
  if (tools?.length) builder.piece(JSON.stringify(tools))
  for (const message of messages) {
    builder.marker(`<|${message.role}|>`)
    builder.piece(contentText(message.content))
    for (const call of message.tool_calls ?? []) builder.piece(call.function.name + call.function.arguments)
  }
  return builder.build()
}

/** The prompt's tokens as strings: what `promptOf` counts, spelled out (for tests and by hand). */
export function promptTokens(messages: PromptMessage[], tools?: unknown[] | null): string[] {
  const { text, ends } = promptOf(messages, tools)
  return Array.from(ends, (end, i) => text.slice(i === 0 ? 0 : ends[i - 1], end))
}

class PromptBuilder {
  #text = ''
  #ends = new Uint32Array(64)
  #count = 0

  /** A token of its own, whatever its characters. */
  marker(token: string): void {
    this.#text += token
    this.#end(this.#text.length)
  }

  /** A text split by the token rule; a token never spans two pieces. */
  piece(text: string): void {
    const offset = this.#text.length
    for (let at = 0; at < text.length; ) {
      at = tokenEnd(text, at)
      this.#end(offset + at)
    }
    this.#text += text
  }

  build(): Prompt {
    return { text: this.#text, ends: this.#ends.slice(0, this.#count) }
  }

  #end(end: number): void {
    if (this.#count === this.#ends.length) {
      const grown = new Uint32Array(this.#ends.length * 2)
      grown.set(this.#ends)
      this.#ends = grown
    }
    this.#ends[this.#count++] = end
  }
}

/** Defaults of the prompt cache: how many prompts it remembers, and how long a prefix of each (tokens, characters). */
const PROMPT_CACHE_ENTRIES = 256
const PROMPT_CACHE_MAX_TOKENS = 16_384
const PROMPT_CACHE_MAX_CHARS = 65_536

/**
 * A prompt as the cache keeps it: its first characters copied out as UTF-16 code units, and
 * where each of its first tokens ends. A copy, because a sliced string may keep the whole
 * original alive: remembering 1 MiB prompts kept 3 MB each, until the cache forgot them.
 */
type Remembered = { codes: Uint16Array; ends: Uint32Array }

/**
 * A bounded, in-memory stand-in for DeepSeek's context cache. It remembers the last
 * `entries` distinct prompts (at most `maxTokens` tokens and `maxChars` characters of each,
 * the least recently seen evicted first), so it holds at most `entries × maxChars × 2` bytes
 * of text (32 MiB by default). A prompt's cache hits are the length of the longest prefix it
 * shares with a remembered prompt; the rest are misses. Then the prompt itself is remembered.
 *
 * So a repeated prompt is all hits, and the next turn of a conversation hits on the
 * whole previous prompt. Unlike DeepSeek, hits are counted per token, not per 64-token block.
 */
export class PromptCache {
  #prompts: Remembered[] = []

  constructor(
    readonly entries = PROMPT_CACHE_ENTRIES,
    readonly maxTokens = PROMPT_CACHE_MAX_TOKENS,
    readonly maxChars = PROMPT_CACHE_MAX_CHARS,
  ) {}

  /** Counts the hits of `prompt` against what is remembered, then remembers `prompt`. */
  lookupAndRemember(prompt: Prompt): { hits: number; misses: number } {
    const tokens = prompt.ends.length
    let hits = 0
    let best = -1
    for (let i = 0; i < this.#prompts.length && hits < tokens; i++) {
      const shared = sharedTokens(this.#prompts[i]!, prompt)
      if (shared > hits) {
        hits = shared
        best = i
      }
    }
    const stored = remembered(prompt, this.maxTokens, this.maxChars)
    if (best >= 0 && this.#prompts[best]!.ends.length === stored.ends.length && hits === stored.ends.length) {
      this.#prompts.splice(best, 1)
    } else if (this.#prompts.length >= this.entries) {
      this.#prompts.shift()
    }
    if (this.entries > 0) this.#prompts.push(stored)
    return { hits, misses: tokens - hits }
  }
}

/**
 * How many leading tokens a remembered prompt shares with a prompt. Both are split without gaps,
 * so while the tokens match they start at the same offset; then a token matches exactly when it
 * ends at the same offset in both and the texts agree up to that offset.
 */
function sharedTokens(a: Remembered, b: Prompt): number {
  const length = Math.min(a.codes.length, b.text.length)
  let same = 0
  while (same < length && a.codes[same] === b.text.charCodeAt(same)) same++
  const count = Math.min(a.ends.length, b.ends.length)
  let i = 0
  while (i < count && a.ends[i] === b.ends[i] && a.ends[i]! <= same) i++
  return i
}

/** The whole tokens of `prompt` that fit both limits, copied. */
function remembered(prompt: Prompt, maxTokens: number, maxChars: number): Remembered {
  let tokens = Math.min(prompt.ends.length, maxTokens)
  while (tokens > 0 && prompt.ends[tokens - 1]! > maxChars) tokens--
  const chars = tokens > 0 ? prompt.ends[tokens - 1]! : 0
  const codes = new Uint16Array(chars)
  for (let i = 0; i < chars; i++) codes[i] = prompt.text.charCodeAt(i)
  return { codes, ends: prompt.ends.slice(0, tokens) }
}
