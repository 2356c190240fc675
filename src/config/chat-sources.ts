import type { Static, TSchema } from '@sinclair/typebox'
import { Value } from '@sinclair/typebox/value'
import { closestMatch } from '../json/closest-match'
import {
  checkHeaderValue,
  ECHO_PROVIDER,
  type ModelRoute,
  type ModelsSetting,
  PROVIDER_DEFAULTS,
  type ProviderConfig,
  type ProviderKinds,
} from './chat'
import type { Env } from './env'
import type { ConfigFile } from './file'
import { type ConfigFinding, formatFinding, settingPath } from './finding'
import { dirname } from 'node:path'

type Segment = string | number

/**
 * Where a setting of JSON shape comes from: its variable when set (parsed and checked here, the first problem thrown
 * as one line naming it), else the file (already checked against the schema; problems are reported where they are
 * written, and checking goes on).
 */
export type Source<T> = {
  value: T | undefined
  /** The variable's name, or undefined when the setting is the file's. */
  variable: string | undefined
  report(path: readonly Segment[], message: string, options?: { part?: 'key' | 'value'; suggestion?: string }): void
  /** Problems of another file a setting names (a scenario), each where it is written there. */
  findings(found: readonly ConfigFinding[]): void
  /** Where a relative path in the setting starts: the file's directory, or the working directory for a variable. */
  baseDir: string
}

export function sourceOf<S extends TSchema>(
  env: Env,
  name: string,
  schema: S,
  file: ConfigFile | undefined,
  key: string,
): Source<Static<S>> {
  const raw = env[name]
  const set = raw !== undefined && raw.trim() !== ''
  // Without a file, the variable is the only place the setting can be, and messages name it.
  if (set || !file) {
    return {
      value: set ? parseJson(name, raw, schema) : undefined,
      variable: name,
      report: (_path, message) => {
        throw new Error(`${name}: ${message}`)
      },
      findings: (found) => {
        if (found.length > 0) throw new Error(`${name}: ${formatFinding(found[0]!)}`)
      },
      baseDir: process.cwd(),
    }
  }
  return {
    value: file?.value[key] as Static<S> | undefined,
    variable: undefined,
    report: (path, message, options) => file.report([key, ...path], message, options),
    findings: (found) => file.findings.push(...found),
    baseDir: dirname(file.source.path),
  }
}

type ProviderSettings = Record<string, unknown> & {
  baseUrl?: string
  apiKey?: string
  apiKeyEnv?: string
  headers?: Record<string, string>
  kind?: string
}

/** Every provider, defaults applied and `apiKeyEnv` resolved; what a schema cannot say is checked here. */
export function resolveProviders(
  source: Source<Record<string, unknown>>,
  kinds: ProviderKinds,
  env: Env,
): Record<string, ProviderConfig> {
  const kindNames = Object.keys(kinds)
  const providers: Record<string, ProviderConfig> = {}
  for (const [provider, settings] of Object.entries(source.value ?? {})) {
    const { apiKeyEnv, ...entry } = settings as ProviderSettings
    const at = `provider '${provider}'`
    /** `message` names the provider already; `key` is the setting at fault, if one is. */
    const fail = (key: string | undefined, message: string, part: 'key' | 'value' = 'value') =>
      source.report(key ? [provider, key] : [provider], message, { part })
    if (provider === ECHO_PROVIDER)
      fail(undefined, `${at}: the name '${ECHO_PROVIDER}' is reserved for the built-in provider`, 'key')
    const kindName = entry.kind ?? kindNames[0]!
    const kind = kinds[kindName]!
    if (kind.withoutBaseUrl && entry.baseUrl !== undefined)
      fail('baseUrl', `${at}: kind ${kindName} takes no baseUrl`, 'key')
    else if (entry.baseUrl === undefined) {
      if (!kind.offline && !kind.withoutBaseUrl)
        fail(
          undefined,
          source.variable
            ? `/${provider}/baseUrl: required for kind ${kindName}`
            : `${settingPath(['providers', provider])}: baseUrl is required`,
          'key',
        )
    } else if (!isHttpUrl(entry.baseUrl))
      fail('baseUrl', `${at}: baseUrl must be an http:// or https:// URL, got '${entry.baseUrl}'`)
    if (entry.apiKey !== undefined && apiKeyEnv !== undefined)
      fail('apiKeyEnv', `${at}: set apiKey or apiKeyEnv, not both`)
    let apiKey = entry.apiKey
    if (apiKeyEnv !== undefined) {
      apiKey = env[apiKeyEnv]
      if (!apiKey) fail('apiKeyEnv', `${at}: apiKeyEnv names ${apiKeyEnv}, which is unset or empty`)
    }
    // Checked here, once: a key with a trailing newline (a file read with `$(cat …)`) failed every
    // request as a retried "could not reach the upstream".
    const checked = (key: string, check: () => void) => {
      try {
        check()
      } catch (error) {
        fail(key, (error as Error).message)
      }
    }
    if (apiKey)
      checked(apiKeyEnv ? 'apiKeyEnv' : 'apiKey', () =>
        checkHeaderValue(`${at}: the API key${apiKeyEnv ? ` in ${apiKeyEnv}` : ''}`, apiKey),
      )
    for (const [header, value] of Object.entries(entry.headers ?? {})) {
      if (!HEADER_NAME.test(header)) fail('headers', `${at}: headers: '${header}' is not a valid HTTP header name`)
      else checked('headers', () => checkHeaderValue(`${at}: header '${header}'`, value))
    }
    for (const key of Object.keys(entry)) {
      const owner = kindNames.find((other) => other !== kindName && key in kinds[other]!.settings)
      if (owner && !(key in kind.settings)) {
        const kindText = source.variable ? `"kind": "${owner}"` : `kind: ${owner}`
        fail(key, `${at}: ${key} applies only to ${kindText}`, 'key')
      }
    }
    try {
      kind.check?.(entry, at, (source.value ?? {}) as Record<string, Record<string, unknown>>)
    } catch (error) {
      const message = (error as Error).message
      fail(
        Object.keys(entry).find((key) => message.startsWith(`${at}: ${key}`)),
        message,
      )
    }
    const resolved = kind.resolve
      ? kind.resolve(entry, {
          at,
          baseDir: source.baseDir,
          env,
          report: (path, message, options) => source.report([provider, ...path], message, options),
          findings: source.findings,
        })
      : entry
    providers[provider] = <ProviderConfig>{
      ...PROVIDER_DEFAULTS,
      ...kind.defaults,
      ...resolved,
      baseUrl: entry.baseUrl?.replace(/\/+$/, '') ?? '',
      ...(apiKey === undefined ? {} : { apiKey }),
    }
  }
  return providers
}

/** The configured models (none when unset), each attempt naming a provider that exists. */
export function resolveModels(
  source: Source<Static<typeof ModelsSetting>>,
  providers: Record<string, ProviderConfig>,
  providerSource: Source<unknown>,
): Record<string, ModelRoute[]> {
  const models = source.value
  if (models === undefined) return {}
  if (Object.keys(models).length === 0)
    source.report([], `${source.variable ? '' : 'models: '}must name at least one model`)
  const names = [...new Set([ECHO_PROVIDER, ...Object.keys(providers)])]
  for (const [model, routes] of Object.entries(models)) {
    routes.forEach((route, index) => {
      if (route.provider === ECHO_PROVIDER || Object.hasOwn(providers, route.provider)) return
      const where = providerSource.variable
        ? `which ${providerSource.variable} does not define`
        : `which is not under providers (${names.join(', ')})`
      source.report([model, index, 'provider'], `model '${model}' uses provider '${route.provider}', ${where}`, {
        suggestion: closestMatch(route.provider, names),
      })
    })
  }
  return models
}

/** RFC 9110 token characters. */
const HEADER_NAME = /^[!#$%&'*+.^_`|~0-9A-Za-z-]+$/

function parseJson<Schema extends TSchema>(name: string, raw: string, schema: Schema): Static<Schema> {
  let value: unknown
  try {
    value = JSON.parse(raw)
  } catch (error) {
    throw new Error(`${name}: not valid JSON (${(error as Error).message})`)
  }
  const problem = Value.Errors(schema, value).First()
  if (problem) throw new Error(`${name}: ${problem.path || '(root)'}: ${problem.message}`)
  return value as Static<Schema>
}

function isHttpUrl(value: string): boolean {
  try {
    const url = new URL(value)
    return url.protocol === 'http:' || url.protocol === 'https:'
  } catch {
    return false
  }
}
