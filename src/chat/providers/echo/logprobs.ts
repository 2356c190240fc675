import type { TokenLogprob } from '../../model'

/** Tokens offered as `top_logprobs` alternatives, in order, skipping the sampled token. */
const ALTERNATIVES = [
  ' the',
  ',',
  '.',
  ' and',
  ' a',
  ' of',
  ' to',
  ' in',
  ' is',
  ' it',
  ' that',
  ' I',
  ' you',
  ' for',
  ' on',
  ' with',
  ' as',
  ' was',
  ' be',
  ' at',
  ' not',
]

/**
 * Deterministic log-probabilities: the sampled token gets `-(fnv1a(token) % 1000 + 1) / 10000`
 * (between -0.0001 and -0.1), and the `k`-th alternative from `ALTERNATIVES` gets
 * that minus `2k`, so the sampled token is always the most likely.
 */
export function logprobFor(token: string, topCount: number): TokenLogprob {
  const logprob = -((fnv1a(token) % 1000) + 1) / 10000
  const alternatives = ALTERNATIVES.filter((candidate) => candidate !== token).slice(0, Math.max(0, topCount - 1))
  const top = topCount > 0 ? [{ token, logprob, bytes: utf8(token) }] : []
  alternatives.forEach((candidate, k) =>
    top.push({ token: candidate, logprob: logprob - 2 * (k + 1), bytes: utf8(candidate) }),
  )
  return { token, logprob, bytes: utf8(token), top_logprobs: top }
}

const encoder = new TextEncoder()

function utf8(text: string): number[] {
  return Array.from(encoder.encode(text))
}

function fnv1a(text: string): number {
  let hash = 0x811c9dc5
  for (let i = 0; i < text.length; i++) {
    hash ^= text.charCodeAt(i)
    hash = Math.imul(hash, 0x01000193)
  }
  return hash >>> 0
}
