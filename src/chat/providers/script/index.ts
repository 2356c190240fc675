import { Type as t } from '@sinclair/typebox'
import type { ProviderKind, ProviderOptions } from '../kind'
import { loadScenario, resolveScenarioSetting } from './load'
import { Scenario } from './model'
import { createScriptProvider, type ScriptProvider } from './script'

export type { ScriptProvider } from './script'
export { loadScenario } from './load'
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
      // Checked again (cheap): a configuration built in code, not read by loadConfig, may hold a path or anything.
      scenario: loadScenario((options as ProviderOptions & { scenario: Scenario | string }).scenario),
      clock: options.clock,
      requestTimeoutMs: options.requestTimeoutMs,
      firstTokenTimeoutMs: options.firstTokenTimeoutMs,
      idleTimeoutMs: options.idleTimeoutMs,
      maxResponseBytes: options.maxResponseBytes,
    }),
}

/** Whether a registry's provider is a script provider, whose scenario can be swapped. */
export function isScriptProvider(provider: { name: string }): provider is ScriptProvider {
  return typeof (provider as Partial<ScriptProvider>).setScenario === 'function'
}
