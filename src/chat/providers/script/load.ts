import { RE2JS } from 're2js'
import { existsSync } from 'node:fs'
import { isAbsolute, relative, resolve } from 'node:path'
import { ConfigFileInvalid } from '../../../config/finding'
import { Value } from '@sinclair/typebox/value'
import { checkHeaderValue, type KindContext } from '../../../config/chat'
import type { Env } from '../../../config/env'
import { readConfigFile } from '../../../config/file'
import { checkSettings } from '../../../config/file-check'
import type { ConfigFinding } from '../../../config/finding'
import { Scenario, STEP_ACTIONS, type Step } from './model'

type Segment = string | number
type Report = (path: readonly Segment[], message: string, options?: { part?: 'key' | 'value' }) => void

/** Longest `/regular expression/` a rule may hold. */
const MAX_PATTERN_LENGTH = 1_000
const FLAGS = /^[imsu]*$/
/**
 * A group with a quantifier inside it, itself quantified (`(a+)+`, `(\w*)*`, `(a|b+){2,}`): the shape of the
 * expressions that backtrack exponentially. Refused, with back-references, as an author's mistake; matching is
 * linear-time whatever passes (see compileLastUser), so a shape this check misses costs no more.
 */
const NESTED_QUANTIFIER = /\((?:[^()\\]|\\.)*(?:[+*]|\{\d+,?\d*\})(?:[^()\\]|\\.)*\)(?:[+*]|\{\d+,?\d*\})/
const BACK_REFERENCE = /\\[1-9]|\\k</

/**
 * A rule's `last_user` expression, compiled for RE2's linear-time engine: a request's text is matched in time
 * proportional to its length whatever the expression (JavaScript's backtracking engine spent a second on 29
 * characters against `((a+))+$` or `(a|a)*$`, which the shape check below does not catch, and hung on
 * `a*a*a*a*a*$` against 16 KiB). Flags: i, m, s (u is RE2's own default).
 *
 * @throws Error naming the syntax RE2 does not take (look-around, back-references) or the error.
 */
export function compileLastUser(parts: { source: string; flags: string }): RE2JS {
  let flags = 0
  if (parts.flags.includes('i')) flags |= RE2JS.CASE_INSENSITIVE
  if (parts.flags.includes('m')) flags |= RE2JS.MULTILINE
  if (parts.flags.includes('s')) flags |= RE2JS.DOTALL
  return RE2JS.compile(parts.source, flags)
}

/** `"/pattern/flags"` as its parts, or undefined for a plain substring. */
export function regexParts(text: string): { source: string; flags: string } | undefined {
  const match = /^\/(.+)\/([a-z]*)$/s.exec(text)
  return match ? { source: match[1]!, flags: match[2]! } : undefined
}

/**
 * What a schema cannot say about a scenario, each problem reported where it is: a step that does nothing or several
 * things, a regular expression that is invalid or may backtrack without bound, tool arguments that are not a JSON
 * object, usage parts larger than their whole, header names HTTP cannot carry.
 */
function checkScenario(scenario: Scenario, report: Report, prefix = ''): void {
  scenario.rules.forEach((rule, r) => {
    const at = (...path: Segment[]) => ['rules', r, ...path]
    const rules = `${prefix}rules`
    const lastUser = rule.match?.last_user
    if (lastUser !== undefined) {
      const problem = regexProblem(lastUser)
      if (problem) report(at('match', 'last_user'), `${rules}[${r}].match.last_user: ${problem}`)
    }
    for (const name of Object.keys(rule.match?.header ?? {}))
      if (!HEADER_NAME.test(name))
        report(at('match', 'header', name), `${rules}[${r}].match.header: '${name}' is not an HTTP header name`)
    rule.reply.forEach((step, s) => {
      const label = `${rules}[${r}].reply[${s}]`
      const actions = STEP_ACTIONS.filter((key) => step[key] !== undefined)
      const paired = actions.length === 2 && actions.includes('error') && actions.includes('error_after_events')
      if (actions.length === 0) report(at('reply', s), `${label}: a step needs one of ${STEP_ACTIONS.join(', ')}`)
      else if (actions.length > 1 && !paired)
        report(
          at('reply', s, actions[1]!),
          `${label}: a step does one thing, this one ${actions.join(' and ')}: make each a step of its own ` +
            '(only error may go beside error_after_events)',
          { part: 'key' },
        )
      checkStep(step, label, (path, message, options) => report(at('reply', s, ...path), message, options))
    })
  })
}

function checkStep(step: Step, label: string, report: Report): void {
  const args = step.tool_call?.arguments
  if (typeof args === 'string') {
    let parsed: unknown
    try {
      parsed = JSON.parse(args)
    } catch {}
    if (typeof parsed !== 'object' || parsed === null || Array.isArray(parsed))
      report(
        ['tool_call', 'arguments'],
        `${label}.tool_call.arguments: the text must be a JSON object, e.g. {"city": "Paris"}`,
      )
  }
  const usage = step.usage
  if (usage?.reasoning_tokens !== undefined && usage.completion_tokens !== undefined)
    if (usage.reasoning_tokens > usage.completion_tokens)
      report(
        ['usage', 'reasoning_tokens'],
        `${label}.usage: reasoning_tokens is part of completion_tokens, so at most it`,
      )
  if (usage?.cached_tokens !== undefined && usage.prompt_tokens !== undefined)
    if (usage.cached_tokens > usage.prompt_tokens)
      report(['usage', 'cached_tokens'], `${label}.usage: cached_tokens is part of prompt_tokens, so at most it`)
  for (const [name, value] of Object.entries(step.error?.headers ?? {})) {
    if (!HEADER_NAME.test(name))
      report(['error', 'headers', name], `${label}.error.headers: '${name}' is not an HTTP header name`, {
        part: 'key',
      })
    try {
      checkHeaderValue(`${label}.error.headers: '${name}'`, value)
    } catch (error) {
      report(['error', 'headers', name], (error as Error).message)
    }
  }
  if (step.stall === false) report(['stall'], `${label}.stall: write stall: true, or leave the step out`)
}

/** Why `text` cannot be a rule's `last_user`, or undefined when it can (a substring always can). */
function regexProblem(text: string): string | undefined {
  const parts = regexParts(text)
  if (!parts) return undefined
  if (parts.source.length > MAX_PATTERN_LENGTH)
    return `a regular expression may hold at most ${MAX_PATTERN_LENGTH} characters`
  if (!FLAGS.test(parts.flags)) return `flags may be i, m, s and u, got "${parts.flags}"`
  if (NESTED_QUANTIFIER.test(parts.source))
    return 'a quantified group holding a quantifier (such as (a+)+) may take exponential time; rewrite it without nesting'
  if (BACK_REFERENCE.test(parts.source)) return 'back-references may take exponential time; rewrite without them'
  try {
    compileLastUser(parts)
  } catch (error) {
    return `not a regular expression (${(error as Error).message})`
  }
  return undefined
}

/** RFC 9110 token characters. */
const HEADER_NAME = /^[!#$%&'*+.^_`|~0-9A-Za-z-]+$/

/**
 * Reads a scenario file (YAML or JSON, `${VAR}` filled in from `env` as in trellis.yaml) and checks it: every problem
 * is a finding with the file's line and column, and a did-you-mean for a misspelt key or value.
 */
function readScenarioFile(path: string, name: string, env: Env): { scenario?: Scenario; findings: ConfigFinding[] } {
  const file = readConfigFile({ path, name, via: 'a provider setting' }, env)
  if (file.parsed) {
    checkSettings(Scenario, file, () => undefined)
    if (file.findings.length === 0 && !Value.Check(Scenario, file.value))
      file.report([], `${name}: not ${Scenario.title}`)
    if (file.findings.length === 0)
      checkScenario(file.value as Scenario, (at, message, options) => file.report(at, message, options))
  }
  if (file.findings.length > 0) return { findings: file.findings }
  return { scenario: file.value as Scenario, findings: [] }
}

/**
 * The `scenario` setting of a script provider made ready: a file's path (relative to the configuration file)
 * read and checked, or the inline scenario checked; the result holds the scenario itself (and `scenarioFile`, its
 * absolute path), so that a reload notices when the file changed.
 */
export function resolveScenarioSetting(
  settings: Readonly<Record<string, unknown>>,
  context: KindContext,
): Record<string, unknown> {
  const setting = settings.scenario
  if (setting === undefined) {
    context.report([], `${context.at}: kind script needs a scenario (a file, or rules: inline)`, { part: 'key' })
    return { ...settings }
  }
  if (typeof setting !== 'string') {
    const report: Report = (path, message, options) => context.report(['scenario', ...path], message, options)
    checkScenario(setting as Scenario, report, `${context.at}: scenario.`)
    return { ...settings }
  }
  const path = isAbsolute(setting) ? setting : resolve(context.baseDir, setting)
  if (!existsSync(path)) {
    context.report(['scenario'], `${context.at}: scenario names ${setting}, which does not exist (looked for ${path})`)
    return { ...settings }
  }
  // Named as the configuration file is, from the working directory, so that editors turn findings into links.
  const fromCwd = relative(process.cwd(), path)
  const shown = isAbsolute(setting) || fromCwd.startsWith('..') ? path : fromCwd
  try {
    const { scenario, findings } = readScenarioFile(path, shown, context.env)
    context.findings(findings)
    return { ...settings, scenario, scenarioFile: path }
  } catch (error) {
    context.report(['scenario'], `${context.at}: ${(error as Error).message}`)
    return { ...settings }
  }
}

/**
 * A scenario checked as the configuration checks one: an object (a scenario inline), or the path of a YAML or JSON
 * file (absolute, or relative to `cwd`). Throws a `ConfigFileInvalid` whose message has a line per problem
 * (`file:line:column: error …` for a file, the setting's path for an object). A script provider's `setScenario` checks
 * what it is given with it.
 */
export function loadScenario(scenario: Scenario | string, cwd = process.cwd()): Scenario {
  if (typeof scenario === 'string') {
    const path = isAbsolute(scenario) ? scenario : resolve(cwd, scenario)
    const read = readScenarioFile(path, scenario, process.env)
    if (read.findings.length > 0 || !read.scenario) throw new ConfigFileInvalid(scenario, read.findings)
    return read.scenario
  }
  const problems: string[] = []
  for (const error of Value.Errors(Scenario, scenario)) problems.push(`${error.path || '(root)'}: ${error.message}`)
  if (problems.length === 0) checkScenario(scenario, (_path, message) => problems.push(message))
  if (problems.length > 0)
    throw new ConfigFileInvalid(
      'scenario',
      problems.map((message) => ({ file: 'scenario', line: 1, column: 1, path: '', message })),
    )
  return scenario
}
