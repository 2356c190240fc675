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
  if (at >= text.length) return undefined
  NEXT_TOKEN.lastIndex = at
  // test() + slice rather than exec(): no match array per token.
  return NEXT_TOKEN.test(text) ? text.slice(at, NEXT_TOKEN.lastIndex) : undefined
}

/**
 * The longest prefix of `text` holding at most `limit` tokens, how many tokens it holds,
 * and whether tokens were left out. Tokens cover the text without gaps, so the prefix is
 * exactly those tokens joined.
 */
export function leadingTokens(text: string, limit: number): { text: string; count: number; cut: boolean } {
  let count = 0
  let end = 0
  for (const match of text.matchAll(TOKEN)) {
    if (count === limit) return { text: text.slice(0, end), count, cut: true }
    count++
    end = match.index + match[0].length
  }
  return { text, count, cut: false }
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
 * names and arguments. `usage.prompt_tokens` is the length of this list.
 */
export function promptTokens(messages: PromptMessage[], tools?: unknown[] | null): string[] {
  const tokens: string[] = tools?.length ? tokenize(JSON.stringify(tools)) : []
  for (const message of messages) {
    tokens.push(`<|${message.role}|>`)
    for (const token of tokenize(contentText(message.content))) tokens.push(token)
    for (const call of message.tool_calls ?? []) {
      for (const token of tokenize(call.function.name + call.function.arguments)) tokens.push(token)
    }
  }
  return tokens
}

/** Defaults of the prompt cache: how many prompts it remembers, and how long a prefix of each. */
export const PROMPT_CACHE_ENTRIES = 256
export const PROMPT_CACHE_MAX_TOKENS = 16_384

/**
 * A bounded, in-memory stand-in for DeepSeek's context cache. It remembers the last
 * `entries` distinct prompts (at most `maxTokens` tokens of each, the least recently seen
 * evicted first). A prompt's cache hits are the length of the longest prefix it shares
 * with a remembered prompt; the rest are misses. Then the prompt itself is remembered.
 *
 * So a repeated prompt is all hits, and the next turn of a conversation hits on the
 * whole previous prompt. Unlike DeepSeek, hits are counted per token, not per 64-token block.
 */
export class PromptCache {
  #prompts: string[][] = []

  constructor(
    readonly entries = PROMPT_CACHE_ENTRIES,
    readonly maxTokens = PROMPT_CACHE_MAX_TOKENS,
  ) {}

  /** Counts the hits of `tokens` against what is remembered, then remembers `tokens`. */
  lookupAndRemember(tokens: string[]): { hits: number; misses: number } {
    let hits = 0
    let best = -1
    for (let i = 0; i < this.#prompts.length && hits < tokens.length; i++) {
      const shared = sharedPrefixLength(this.#prompts[i]!, tokens)
      if (shared > hits) {
        hits = shared
        best = i
      }
    }
    const stored = tokens.length > this.maxTokens ? tokens.slice(0, this.maxTokens) : tokens
    if (best >= 0 && this.#prompts[best]!.length === stored.length && hits === stored.length) {
      this.#prompts.splice(best, 1)
    } else if (this.#prompts.length >= this.entries) {
      this.#prompts.shift()
    }
    if (this.entries > 0) this.#prompts.push(stored)
    return { hits, misses: tokens.length - hits }
  }
}

function sharedPrefixLength(a: string[], b: string[]): number {
  const length = Math.min(a.length, b.length)
  let i = 0
  while (i < length && a[i] === b[i]) i++
  return i
}
