import { Type as t } from '@sinclair/typebox'
import { Value } from '@sinclair/typebox/value'
import { isAbsolute, resolve } from 'node:path'
import { ConfigFileInvalid } from '../../../config/finding'
import type { ProviderKind, ProviderOptions } from '../kind'
import { checkScenario, readScenarioFile, resolveScenarioSetting } from './load'
import { Scenario } from './model'
import { createScriptProvider, type ScriptProvider } from './script'

export type { ScriptProvider } from './script'
export { Scenario } from './model'

/**
 * `"kind": "script"`: answers from a scenario instead of an upstream (no `baseUrl`, no key): see README.md, "The
 * script provider". Its one setting, `scenario`, is the scenario inline (`{rules: […]}`) or the path of a YAML or
 * JSON file, relative to the configuration file (to the working directory in `CHAT_PROVIDERS`), read and checked at
 * start and at every reload, so a reload serves the file as it is then. Of the common settings it reads the timeouts
 * (`firstTokenTimeoutMs`, `idleTimeoutMs`, `requestTimeoutMs`); it retries nothing unless `maxRetries` is set and an
 * error step says `retryable: true`.
 */
export const SCRIPT_KIND: ProviderKind = {
  settings: {
    scenario: t.Optional(
      t.Union([t.String({ minLength: 1, title: 'the path of a scenario file' }), Scenario], {
        description: 'The scenario: inline (rules: …), or a YAML or JSON file, relative to this file.',
      }),
    ),
  },
  defaults: { maxRetries: 0 },
  offline: true,
  resolve: resolveScenarioSetting,
  create: (options) =>
    createScriptProvider({
      name: options.name,
      scenario: (options as ProviderOptions & { scenario: Scenario }).scenario,
      clock: options.clock,
      requestTimeoutMs: options.requestTimeoutMs,
      firstTokenTimeoutMs: options.firstTokenTimeoutMs,
      idleTimeoutMs: options.idleTimeoutMs,
      maxResponseBytes: options.maxResponseBytes,
    }),
}

/**
 * A scenario checked as the configuration checks one: an object (a scenario inline), or the path of a YAML or JSON
 * file (absolute, or relative to `cwd`). Throws a `ConfigFileInvalid` whose message has a line per problem
 * (`file:line:column: error …` for a file, the setting's path for an object). With {@link ScriptProvider.setScenario}
 * it swaps what a running script provider answers:
 *
 * @example
 * const provider = registryProvider as ScriptProvider
 * provider.setScenario(loadScenario('tests/llm.yaml'))
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

/** Whether a registry's provider is a script provider, whose scenario can be swapped. */
export function isScriptProvider(provider: { name: string }): provider is ScriptProvider {
  return typeof (provider as Partial<ScriptProvider>).setScenario === 'function'
}
