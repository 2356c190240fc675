import { isAbsolute, resolve } from 'node:path'
import type { ModelRoute } from '../config/chat'
import { loadScenario, type Scenario } from '../chat/providers/script'

/** A scenario of the `script` provider: the path of a YAML or JSON file, or the scenario itself (`{ rules: […] }`). */
export type ScenarioInput = string | Scenario

/** The provider a test server's scenario is served by, under this name in `providers:`. */
const SCRIPT_PROVIDER = 'script'

/**
 * The configuration a scenario stands for, as variables: exactly what a `trellis.yaml` would say,
 *
 *   providers: { script: { kind: script, scenario: <the scenario> } }
 *   models: { script: [{ provider: script, model: script }], <each of models>: [{ provider: script, model: <it> }] }
 *
 * so a test server validates a scenario as any server does. A relative path is resolved against `cwd` here, since
 * the variables have no file to be relative to. Without a scenario, the `models` are served by `echo`.
 */
export function scenarioSettings(
  scenario: ScenarioInput | undefined,
  models: readonly string[],
  cwd: string,
): Record<string, string> {
  if (scenario === undefined) {
    if (models.length === 0) return {}
    return { CHAT_MODELS: JSON.stringify(routes(models, 'echo')) }
  }
  // A file is checked where the configuration reads it (findings at line:column); a scenario inline is checked here,
  // whose findings name its settings, where the variable's check could only say that it is not a scenario.
  const setting =
    typeof scenario === 'string' ? (isAbsolute(scenario) ? scenario : resolve(cwd, scenario)) : loadScenario(scenario)
  return {
    CHAT_PROVIDERS: JSON.stringify({ [SCRIPT_PROVIDER]: { kind: 'script', scenario: setting } }),
    CHAT_MODELS: JSON.stringify(routes([SCRIPT_PROVIDER, ...models], SCRIPT_PROVIDER)),
  }
}

function routes(models: readonly string[], provider: string): Record<string, ModelRoute[]> {
  return Object.fromEntries([...new Set(models)].map((model) => [model, [{ provider, model }]]))
}
