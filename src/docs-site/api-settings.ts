import type { DocsConfig } from '../docs-format/docs-json'

/** How an API page shows its playground: a form that sends the request, the request as code samples, or nothing. */
type PlaygroundDisplay = 'interactive' | 'simple' | 'none'

/** The languages an API page's code samples can be written in, by the names docs.json may give them. */
export const SAMPLE_LANGUAGES = { curl: 'cURL', python: 'Python', javascript: 'JavaScript' } as const
export type SampleLanguage = keyof typeof SAMPLE_LANGUAGES
const LANGUAGE_NAMES: Record<string, SampleLanguage> = {
  curl: 'curl',
  bash: 'curl',
  shell: 'curl',
  sh: 'curl',
  python: 'python',
  py: 'python',
  javascript: 'javascript',
  js: 'javascript',
  node: 'javascript',
  nodejs: 'javascript',
}

type Auth = { method?: 'bearer' | 'basic' | 'key' | 'cobo'; name?: string; inputPrefix?: string }

/** docs.json's `api` as both shapes may write it (the spec's older keys, and Mintlify's current ones). */
type ApiConfig = {
  baseUrl?: string | string[]
  auth?: Auth
  playground?: { mode?: 'show' | 'simple' | 'hide'; display?: 'interactive' | 'simple' | 'none' | 'auth' }
  examples?: { languages?: string[] }
  mdx?: { server?: string | string[]; auth?: Auth }
}

/** What an API page reads of docs.json, whichever shape wrote it. */
export type ApiSettings = {
  display: PlaygroundDisplay
  /** Base URLs docs.json gives the page's requests; undefined when it gives none (the document's servers are used). */
  baseUrls?: string[]
  auth?: Auth
  /** The code samples' languages, in docs.json's order; cURL when it names none Trellis writes. */
  languages: SampleLanguage[]
}

const DISPLAY_OF_MODE = { show: 'interactive', simple: 'simple', hide: 'none' } as const

/**
 * docs.json's API settings for an operation page (`openapi:`) or an MDX endpoint page (`api:` front matter, whose
 * base URL and authentication are the current shape's `api.mdx.server` and `api.mdx.auth`, else the older shape's
 * `api.baseUrl` and `api.auth`). The current shape's `api.playground.display` wins over the older `mode`;
 * `auth` (Mintlify shows the playground to signed-in readers only) shows none: a Trellis site has no readers' sign-in.
 *
 * @example
 * apiSettings({ api: { playground: { display: 'simple' }, examples: { languages: ['python'] } } }, 'openapi')
 * // { display: 'simple', languages: ['python'], baseUrls: undefined, auth: undefined }
 */
export function apiSettings(config: DocsConfig, page: 'openapi' | 'mdx'): ApiSettings {
  const api = (config.api ?? {}) as ApiConfig
  const { display, mode } = api.playground ?? {}
  const base = page === 'mdx' ? (api.mdx?.server ?? api.baseUrl) : api.baseUrl
  const languages = (api.examples?.languages ?? []).flatMap((name) => LANGUAGE_NAMES[name.toLowerCase()] ?? [])
  return {
    display: display === 'auth' ? 'none' : (display ?? DISPLAY_OF_MODE[mode ?? 'show']),
    baseUrls: base === undefined ? undefined : Array.isArray(base) ? base : [base],
    auth: page === 'mdx' ? (api.mdx?.auth ?? api.auth) : api.auth,
    languages: languages.length === 0 ? ['curl'] : [...new Set(languages)],
  }
}

/** Every base URL docs.json names for API pages (both kinds), for the Content-Security-Policy's connect-src. */
export function apiBaseUrls(config: DocsConfig): string[] {
  return [...(apiSettings(config, 'openapi').baseUrls ?? []), ...(apiSettings(config, 'mdx').baseUrls ?? [])]
}
