import { describe, expect, setDefaultTimeout, test } from 'bun:test'
import { loadScenario } from '../../../../src/chat/providers/script/load'
import { compileRules } from '../../../../src/chat/providers/script/match'

// bun applies the preload's default timeout to the first file only (tests/setup.ts).
setDefaultTimeout(30_000)

/**
 * A scenario's `last_user` expression against a hostile client's message. The scenario is the operator's config,
 * but the text is anyone's: expressions that backtrack in JavaScript's engine and pass the load-time shape check
 * are matched in linear time, so 16 KiB of text (the most a rule searches) answers at once.
 */

/** The one rule of a scenario whose last_user is `pattern`, compiled. */
const ruleFor = (pattern: string) =>
  compileRules(loadScenario({ rules: [{ match: { last_user: pattern }, reply: [{ text: 'hit' }] }] }))[0]!

const facts = (lastUser: string) => ({ model: 'm', lastUser, turn: 1, hasToolResult: false, headers: new Headers() })

describe('expressions the shape check lets through', () => {
  // Each took from half a second (on 29 characters) to over a minute (on 16 KiB) in JavaScript's engine.
  const HOSTILE = `${'a'.repeat(16_383)}!`
  const ROWS: [string, string, boolean][] = [
    ['a quantified group nested in a group', '/((a+))+$/', false],
    ['a non-capturing group nested in a quantified one', '/(?:(?:a)+)+$/', false],
    ['an alternation of the same text', '/^(a|a)*$/', false],
    ['an alternation that overlaps', '/(?:a|.)*b/', false],
    ['five stars in a row (polynomial)', '/^a*a*a*a*a*$/', false],
    ['five stars in a row, matching', '/a*a*a*a*a*!$/', true],
  ]
  test.each(ROWS)('%s: answered in well under a second', (_name, pattern, matches) => {
    const rule = ruleFor(pattern)
    const started = performance.now()
    expect(rule.test(facts(HOSTILE))).toBe(matches)
    expect(performance.now() - started).toBeLessThan(1000)
  })
})

describe('what scenarios keep', () => {
  const ROWS: [string, string, string, boolean][] = [
    ['a substring', 'needle', 'a needle here', true],
    ['case-insensitive', '/NEEDLE$/i', 'the needle', true],
    ['anchored lines with m', '/^second$/m', 'first\nsecond\nthird', true],
    ['dot across lines with s', '/first.second/s', 'first\nsecond', true],
    ['without s, no dot across lines', '/first.second/', 'first\nsecond', false],
    ['unicode text', '/héllo/i', 'HÉLLO', true],
  ]
  test.each(ROWS)('%s', (_name, pattern, text, matches) => {
    expect(ruleFor(pattern).test(facts(text))).toBe(matches)
  })

  const REFUSED: [string, string, string][] = [
    ['look-ahead (RE2 has none)', '/a(?=b)/', 'not a regular expression'],
    ['a back-reference', '/(a)\\1/', 'back-references'],
    ['a nested quantifier', '/(a+)+$/', 'a quantified group holding a quantifier'],
  ]
  test.each(REFUSED)('refused at load: %s', (_name, pattern, message) => {
    expect(() => ruleFor(pattern)).toThrow(message)
  })
})
