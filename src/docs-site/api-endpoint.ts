import type { DocsConfig } from '../docs-format/docs-json'
import { playgroundData, playgroundHtml } from './api-page'
import { apiSettings } from './api-settings'
import { escapeHtml } from './html'
import type { Operation } from './openapi-schema'

/** `api:` front matter: a method, then a path (`/users/{id}`) or a whole URL (`https://api.example.com/users`). */
const ENDPOINT = /^\s*(GET|POST|PUT|PATCH|DELETE|HEAD|OPTIONS|TRACE)\s+(\S+)\s*$/i
const ABSOLUTE = /^(https?:\/\/[^/?#\s]+)(.*)$/i
const WITH_BODY = ['POST', 'PUT', 'PATCH']

/** The URL an `api:` front matter names in whole (its playground calls it), for the page's connect-src. */
export function endpointUrls(value: unknown): string[] {
  const match = typeof value === 'string' ? ENDPOINT.exec(value) : null
  return match !== null && ABSOLUTE.test(match[2]!) ? [match[2]!] : []
}

/**
 * An MDX endpoint page (Mintlify's `api: "POST https://api.example.com/users"` front matter, its parameters written
 * as ParamField components in the page): the method and path, and the playground docs.json's `api.playground` asks
 * for. A path is sent to the current shape's `api.mdx.server` (else the older `api.baseUrl`); a whole URL to its
 * own origin. Path parameters (`{id}`) are the playground's fields; a POST, PUT or PATCH may have a JSON body.
 */
export function renderEndpoint(value: unknown, config: DocsConfig): string {
  const match = typeof value === 'string' ? ENDPOINT.exec(value) : null
  if (match === null)
    return (
      '<div class="callout callout-warning" role="note"><p>' +
      `${escapeHtml(`The front matter's api value ${JSON.stringify(value)} is not "METHOD /path" or "METHOD URL".`)}` +
      '</p></div>'
    )
  const method = match[1]!.toUpperCase()
  const settings = apiSettings(config, 'mdx')
  const absolute = ABSOLUTE.exec(match[2]!)
  const path = absolute === null ? match[2]! : absolute[2] || '/'
  const baseUrls = absolute === null ? (settings.baseUrls ?? []) : [absolute[1]!]
  const parameters = [...path.matchAll(/\{([^{}/]+)\}/g)].map((name) => ({
    name: name[1]!,
    in: 'path',
    required: true,
  }))
  const operation: Operation = { method, path, parameters, responses: [], security: [] }
  const data = playgroundData(operation, settings, baseUrls, false, WITH_BODY.includes(method))
  return (
    `<div class="operation"><p class="endpoint"><span class="method method-${method.toLowerCase()}">${method}</span> ` +
    `<code>${escapeHtml(path)}</code></p></div>${playgroundHtml(operation, settings, data, undefined)}`
  )
}
