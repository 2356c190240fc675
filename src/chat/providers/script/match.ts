import { contentText } from '../echo/tokenizer'
import { type ChatRequest, type JsonObject, ProviderError } from '../provider'
import { compileLastUser, regexParts } from './load'
import type { Rule, Scenario } from './model'

/** Only this much of the last user message is searched: a rule's cost does not grow with the request. */
const MAX_SEARCHED_CHARS = 16_384

/** What the rules look at, read once per request. */
export type Facts = {
  model: string
  lastUser: string
  hasToolResult: boolean
  /** 1 + the number of assistant messages: which answer of the conversation this is. */
  turn: number
  headers: Headers | undefined
}

/** The facts of a request in Chat Completions form (the other wire formats reach a provider translated to it). */
export function factsOf(request: ChatRequest, headers: Headers | undefined): Facts {
  const messages = request.messages
  let lastUser: JsonObject | undefined
  let lastAssistant = -1
  let assistants = 0
  messages.forEach((message, index) => {
    if (message.role === 'user') lastUser = message
    if (message.role === 'assistant') {
      assistants++
      lastAssistant = index
    }
  })
  const hasToolResult = messages.some((message, index) => index > lastAssistant && message.role === 'tool')
  const text = contentText(lastUser?.content)
  return {
    model: request.model,
    lastUser: text.length > MAX_SEARCHED_CHARS ? text.slice(0, MAX_SEARCHED_CHARS) : text,
    hasToolResult,
    turn: assistants + 1,
    headers,
  }
}

/** A rule ready to test: its regular expression compiled once. */
export type CompiledRule = { rule: Rule; name: string; test(facts: Facts): boolean }

export function compileRules(scenario: Scenario): CompiledRule[] {
  return scenario.rules.map((rule, index) => {
    const match = rule.match ?? {}
    const parts = match.last_user === undefined ? undefined : regexParts(match.last_user)
    const pattern = parts && compileLastUser(parts)
    const headers = Object.entries(match.header ?? {})
    return {
      rule,
      name: rule.name ?? `rules[${index}]`,
      test: (facts) =>
        (match.model === undefined || match.model === facts.model) &&
        (match.has_tool_result === undefined || match.has_tool_result === facts.hasToolResult) &&
        (match.turn === undefined || match.turn === facts.turn) &&
        headers.every(([name, value]) => facts.headers?.get(name) === value) &&
        (match.last_user === undefined ||
          (pattern ? pattern.matcher(facts.lastUser).find() : facts.lastUser.includes(match.last_user))),
    }
  })
}

/**
 * The 400 for a request no rule matches, naming the rule it came closest to: the one whose `last_user` and `model`
 * are most alike the request's (by shared pairs of letters), with what it asked for.
 */
export function unmatched(rules: CompiledRule[], facts: Facts, provider: string): ProviderError {
  let best: CompiledRule | undefined
  let bestScore = -1
  for (const candidate of rules) {
    const match = candidate.rule.match ?? {}
    let score = 0
    if (match.last_user !== undefined) score += similarity(match.last_user, facts.lastUser)
    if (match.model !== undefined) score += similarity(match.model, facts.model)
    if (score > bestScore) {
      best = candidate
      bestScore = score
    }
  }
  const closest = best ? ` The closest rule is ${best.name} (match: ${JSON.stringify(best.rule.match ?? {})}).` : ''
  const asked = JSON.stringify(facts.lastUser.length > 80 ? `${facts.lastUser.slice(0, 77)}…` : facts.lastUser)
  return new ProviderError(
    400,
    `No rule of the scenario of provider '${provider}' matches this request (model ${JSON.stringify(facts.model)}, ` +
      `turn ${facts.turn}, last user message ${asked}${facts.hasToolResult ? ', with a tool result' : ''}).${closest}`,
    { type: 'invalid_request_error', code: 'no_matching_rule' },
  )
}

/** Dice's coefficient of the letter pairs of two texts (lower case, the first 256 characters of each): 0 to 1. */
function similarity(a: string, b: string): number {
  const pairs = (text: string) => {
    const lowered = text.toLowerCase().slice(0, 256)
    const counts = new Map<string, number>()
    for (let i = 0; i < lowered.length - 1; i++) {
      const pair = lowered.slice(i, i + 2)
      counts.set(pair, (counts.get(pair) ?? 0) + 1)
    }
    return { counts, total: Math.max(0, lowered.length - 1) }
  }
  const left = pairs(a)
  const right = pairs(b)
  if (left.total + right.total === 0) return 0
  let shared = 0
  for (const [pair, count] of left.counts) shared += Math.min(count, right.counts.get(pair) ?? 0)
  return (2 * shared) / (left.total + right.total)
}
