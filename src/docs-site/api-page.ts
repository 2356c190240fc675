import type { DocsConfig } from '../docs-format/docs-json'
import { attributes, escapeHtml, scriptJson } from './html'
import { trimSlashes } from './links'
import { type ApiSettings, apiSettings, SAMPLE_LANGUAGES, type SampleLanguage } from './api-settings'
import { renderMarkdown } from './markdown'
import {
  exampleOf,
  isObject,
  MAX_LISTED_FIELDS,
  MAX_SCHEMA_DEPTH,
  type MediaType,
  type OpenApiDocument,
  type Operation,
  resolve,
  typeName,
} from './openapi-schema'

/** What the browser's playground script needs; sent as JSON data, never as script. */
export type PlaygroundData = {
  method: string
  path: string
  /** Base URLs to choose from; an empty list means the page's own origin. */
  baseUrls: string[]
  auth?: { method: 'bearer' | 'basic' | 'key'; name?: string; inputPrefix?: string }
  /** Whether the request has a JSON body. */
  jsonBody: boolean
}

/**
 * An API page: the operation's method, path, description, parameters, request body and responses with
 * examples, then the playground docs.json's `api.playground` asks for (see {@link playgroundHtml}).
 *
 * `sameOrigin`: the built-in default docs.json describes this very server, wherever it listens, so its
 * playground calls the page's own origin rather than the `baseUrl` the default file carries.
 */
export function renderOperation(
  document: OpenApiDocument,
  operation: Operation,
  config: DocsConfig,
  options: { sameOrigin: boolean; servers?: string[] },
): string {
  const settings = apiSettings(config, 'openapi')
  const bodyMedia =
    operation.requestBody?.content['application/json'] ?? Object.values(operation.requestBody?.content ?? {})[0]
  const bodyExample = bodyMedia === undefined ? undefined : mediaExample(document, bodyMedia)
  const secured = operation.security.some((requirement) => isObject(requirement) && Object.keys(requirement).length > 0)
  const baseUrls = options.sameOrigin ? [] : (settings.baseUrls ?? options.servers ?? [])
  const data = playgroundData(operation, settings, baseUrls, secured, bodyMedia !== undefined)
  return [
    `<div class="operation"><p class="endpoint"><span class="method ` +
      `method-${operation.method.toLowerCase()}">${operation.method}</span> ` +
      `<code>${escapeHtml(operation.path)}</code>${operation.deprecated ? ' <span class="badge">deprecated</span>' : ''}</p>`,
    operation.description === undefined
      ? ''
      : `<div class="operation-description">${renderMarkdown(operation.description, { pageHref: () => undefined }).html}</div>`,
    secured
      ? `<p class="auth-note">Requires authentication${data.auth ? ` (${escapeHtml(authLabel(data.auth))})` : ''}.</p>`
      : '',
    parametersSection(document, operation),
    requestBodySection(document, operation, bodyExample),
    responsesSection(document, operation),
    '</div>',
    playgroundHtml(operation, settings, data, bodyExample),
  ].join('')
}

/** What the playground sends with: the base URLs, the authentication docs.json asks for (or the operation needs). */
export function playgroundData(
  operation: Operation,
  settings: ApiSettings,
  baseUrls: string[],
  secured: boolean,
  jsonBody: boolean,
): PlaygroundData {
  const auth = settings.auth
  return {
    method: operation.method,
    path: operation.path,
    baseUrls,
    auth:
      secured || auth?.method !== undefined
        ? // cobo (Mintlify's Cobo signing) is sent as an API key header: the nearest the playground has.
          { method: authMethodOf(auth?.method), name: auth?.name, inputPrefix: auth?.inputPrefix }
        : undefined,
    jsonBody,
  }
}

/**
 * The playground docs.json's `api.playground` asks for: `interactive`, a form that sends the request; `simple`, the
 * request as copyable code samples in `api.examples.languages`, with no send button; `none`, nothing.
 */
export function playgroundHtml(
  operation: Operation,
  settings: ApiSettings,
  data: PlaygroundData,
  bodyExample: unknown,
): string {
  if (settings.display === 'interactive') return playgroundForm(operation, data, bodyExample)
  if (settings.display === 'simple') return simpleRequest(operation, data, bodyExample, settings.languages)
  return ''
}

function parametersSection(document: OpenApiDocument, operation: Operation): string {
  if (operation.parameters.length === 0) return ''
  const rows = operation.parameters.map((parameter) => {
    const schema = resolve(document, parameter.schema)
    return (
      `<tr><td><code>${escapeHtml(parameter.name)}</code></td><td>${escapeHtml(parameter.in)}</td><td>` +
      `${escapeHtml(typeName(document, schema))}</td><td>${parameter.required ? 'yes' : 'no'}</td><td>` +
      `${escapeHtml(parameter.description ?? '')}</td></tr>`
    )
  })
  return (
    `<section aria-labelledby="parameters"><h2 id="parameters">Parameters</h2><div ` +
    `class="table-wrap"><table><thead><tr><th scope="col">Name</th><th scope="col">In</th><th ` +
    `scope="col">Type</th><th scope="col">Required</th><th ` +
    `scope="col">Description</th></tr></thead><tbody>${rows.join('')}</tbody></table></div></section>`
  )
}

function requestBodySection(document: OpenApiDocument, operation: Operation, example: unknown): string {
  const body = operation.requestBody
  if (body === undefined) return ''
  const types = Object.keys(body.content)
  const media = body.content['application/json'] ?? Object.values(body.content)[0]
  return [
    '<section aria-labelledby="request-body"><h2 id="request-body">Request body</h2>',
    `<p>${escapeHtml(types.join(', ') || 'any content')}${body.required ? ' · required' : ''}</p>`,
    body.description === undefined ? '' : `<p>${escapeHtml(body.description)}</p>`,
    media?.schema === undefined ? '' : fieldList(document, media.schema, 0, [], { left: MAX_LISTED_FIELDS }),
    example === undefined ? '' : exampleBlock('Example request body', example),
    '</section>',
  ].join('')
}

function responsesSection(document: OpenApiDocument, operation: Operation): string {
  if (operation.responses.length === 0) return ''
  // One allowance for all responses: an operation with hundreds of them must not list each in full.
  const budget = { left: MAX_LISTED_FIELDS }
  const items = operation.responses.map((response) => {
    const [type, media] = Object.entries(response.content)[0] ?? []
    const example = media === undefined ? undefined : mediaExample(document, media)
    const headers = Object.keys(response.headers)
    return [
      `<details class="response"${response.status.startsWith('2') ? ' open' : ''}><summary><span class="status ` +
        `status-${escapeHtml(response.status[0] ?? 'x')}xx">${escapeHtml(response.status)}</span> ` +
        `${escapeHtml(response.description ?? '')}</summary>`,
      type === undefined ? '' : `<p class="media-type">${escapeHtml(type)}</p>`,
      headers.length === 0
        ? ''
        : `<p>Headers: ${headers.map((name) => `<code>${escapeHtml(name)}</code>`).join(', ')}</p>`,
      media?.schema === undefined ? '' : fieldList(document, media.schema, 0, [], budget),
      example === undefined ? '' : exampleBlock(`Example ${response.status} response`, example),
      '</details>',
    ].join('')
  })
  return `<section aria-labelledby="responses"><h2 id="responses">Responses</h2>${items.join('')}</section>`
}

/**
 * An object schema's properties as a nested list (name, type, required, description), limited in depth and in
 * fields listed (`budget`, shared by the whole list); what is left out is said, not dropped silently.
 */
function fieldList(
  document: OpenApiDocument,
  schema: unknown,
  depth: number,
  refs: string[],
  budget: { left: number },
): string {
  const ref = isObject(schema) && typeof schema.$ref === 'string' ? schema.$ref : undefined
  if (ref !== undefined && refs.includes(ref)) return ''
  const seen = ref === undefined ? refs : [...refs, ref]
  let resolved = resolve(document, schema)
  if (isObject(resolved) && resolved.type === 'array') resolved = resolve(document, resolved.items)
  if (!isObject(resolved) || !isObject(resolved.properties) || depth >= MAX_SCHEMA_DEPTH) return ''
  const required = new Set(Array.isArray(resolved.required) ? resolved.required : [])
  const properties = Object.entries(resolved.properties)
  const shown = properties.slice(0, Math.max(0, budget.left))
  budget.left -= shown.length
  const items = shown.map(([name, property]) => {
    const target = resolve(document, property)
    const description = isObject(target) && typeof target.description === 'string' ? target.description : ''
    const requiredMark = required.has(name) ? ' <span class="required">required</span>' : ''
    const describe = description === '' ? '' : `<div class="field-description">${escapeHtml(description)}</div>`
    const type = escapeHtml(typeName(document, property))
    const nested = fieldList(document, property, depth + 1, seen, budget)
    return `<li><code>${escapeHtml(name)}</code> <span class="type">${type}</span>${requiredMark}${describe}${nested}</li>`
  })
  const hidden = properties.length - shown.length
  if (hidden > 0) items.push(`<li class="field-more">${hidden} more field${hidden === 1 ? '' : 's'} not shown</li>`)
  return `<ul class="fields">${items.join('')}</ul>`
}

function mediaExample(document: OpenApiDocument, media: MediaType): unknown {
  if (media.example !== undefined) return media.example
  const first = Object.values(media.examples ?? {})[0]
  if (first?.value !== undefined) return first.value
  return exampleOf(document, media.schema)
}

function exampleBlock(label: string, example: unknown): string {
  const text = typeof example === 'string' ? example : JSON.stringify(example, null, 2)
  return `<figure class="example"><figcaption>${escapeHtml(label)}</figcaption><pre><code class="language-json">${escapeHtml(text)}</code></pre></figure>`
}

function authLabel(auth: NonNullable<PlaygroundData['auth']>): string {
  if (auth.method === 'basic') return 'HTTP Basic'
  if (auth.method === 'key') return `API key in the ${auth.name ?? 'X-API-Key'} header`
  return 'Bearer token'
}

function playgroundForm(operation: Operation, data: PlaygroundData, bodyExample: unknown): string {
  const fields: string[] = []
  if (data.baseUrls.length > 1) {
    fields.push(
      `<label>Base URL <select name="baseUrl">${data.baseUrls.map((url) => `<option>${escapeHtml(url)}</option>`).join('')}</select></label>`,
    )
  }
  if (data.auth?.method === 'basic') {
    const [user, password] = (data.auth.name ?? 'username:password').split(':')
    fields.push(
      `<label>${escapeHtml(user || 'username')} <input name="authUser" autocomplete="off"></label>`,
      `<label>${escapeHtml(password || 'password')} <input name="authPassword" type="password" autocomplete="off"></label>`,
    )
  } else if (data.auth !== undefined) {
    const label = data.auth.method === 'key' ? (data.auth.name ?? 'X-API-Key') : 'Authorization: Bearer token'
    fields.push(
      `<label>${escapeHtml(label)} <input name="auth"${attributes({ value: data.auth.inputPrefix, autocomplete: 'off', spellcheck: 'false' })}></label>`,
    )
  }
  for (const parameter of operation.parameters) {
    if (parameter.in !== 'path' && parameter.in !== 'query' && parameter.in !== 'header') continue
    fields.push(
      `<label><code>${escapeHtml(parameter.name)}</code> ` +
        `<small>${escapeHtml(parameter.in)}${parameter.required ? ', required' : ''}</small> ` +
        `<input${attributes({ 'data-in': parameter.in, 'data-name': parameter.name, required: requiredInPath(parameter) })}></label>`,
    )
  }
  if (data.jsonBody) {
    const text = bodyExample === undefined ? '' : JSON.stringify(bodyExample, null, 2)
    fields.push(
      `<label>Body (JSON) <textarea name="body" rows="8" spellcheck="false">${escapeHtml(text)}</textarea></label>`,
    )
  }
  return [
    '<section class="playground" aria-labelledby="playground-title"><h2 id="playground-title">Try it</h2>',
    `<script type="application/json" class="playground-data">${scriptJson(data)}</script>`,
    `<form class="playground-form">${fields.join('')}<button type="submit" class="button-primary">Send ${escapeHtml(operation.method)} request</button></form>`,
    '<div class="playground-response" aria-live="polite" hidden><p ' +
      'class="playground-status"></p><h3>Headers</h3><pre class="playground-headers"></pre><h3>Body</h3><pre ' +
      'class="playground-body"></pre></div>',
    '</section>',
  ].join('')
}

function simpleRequest(
  operation: Operation,
  data: PlaygroundData,
  bodyExample: unknown,
  languages: SampleLanguage[],
): string {
  const base = trimSlashes(data.baseUrls[0] ?? '', 'end')
  const relative = attributes({ 'data-relative-base': base === '' ? 'true' : undefined })
  const samples = languages.map((language) => {
    const code = SAMPLE_WRITERS[language](operation.method, `${base}${operation.path}`, data, bodyExample)
    const quoted = attributes({ 'data-relative-base': base === '' ? 'quoted' : undefined })
    return (
      `<figure class="copyable code-sample"><figcaption>${SAMPLE_LANGUAGES[language]}</figcaption><pre><code ` +
      `class="${language === 'curl' ? 'curl' : `language-${language}`}"${quoted}>${escapeHtml(code)}</code></pre>` +
      '<button type="button" class="copy-button">Copy</button></figure>'
    )
  })
  return [
    '<section class="playground-simple" aria-labelledby="request-title"><h2 id="request-title">Request</h2>',
    `<p><span class="method method-${operation.method.toLowerCase()}">${operation.method}</span> ` +
      `<code${relative}>${escapeHtml(`${base}${operation.path}`)}</code></p>`,
    ...samples,
    '</section>',
  ].join('')
}

type SampleWriter = (method: string, url: string, data: PlaygroundData, body: unknown) => string

/** One request in each language a code sample can be written in; auth and body as the playground would send them. */
const SAMPLE_WRITERS: Record<SampleLanguage, SampleWriter> = {
  curl: (method, url, data, body) => {
    const lines = [`curl -X ${method} '${shellQuoted(url)}'`]
    if (data.auth?.method === 'bearer') lines.push(`-H 'Authorization: Bearer <token>'`)
    if (data.auth?.method === 'key') lines.push(`-H '${shellQuoted(data.auth.name ?? 'X-API-Key')}: <key>'`)
    if (data.auth?.method === 'basic') lines.push(`-u '<username>:<password>'`)
    if (data.jsonBody)
      lines.push(`-H 'Content-Type: application/json'`, `-d '${shellQuoted(JSON.stringify(body ?? {}))}'`)
    return lines.join(' \\\n  ')
  },
  python: (method, url, data, body) => {
    const args = [JSON.stringify(method), JSON.stringify(url)]
    const headers = sampleHeaders(data)
    if (Object.keys(headers).length > 0) args.push(`headers=${JSON.stringify(headers)}`)
    if (data.auth?.method === 'basic') args.push('auth=("<username>", "<password>")')
    if (data.jsonBody) args.push(`json=${pythonLiteral(body ?? {})}`)
    return `import requests\n\nresponse = requests.request(${args.join(', ')})\nprint(response.json())`
  },
  javascript: (method, url, data, body) => {
    const headers = sampleHeaders(data)
    if (data.auth?.method === 'basic') headers.Authorization = 'Basic <base64 of username:password>'
    if (data.jsonBody) headers['Content-Type'] = 'application/json'
    const options = [`method: ${JSON.stringify(method)}`]
    if (Object.keys(headers).length > 0) options.push(`headers: ${JSON.stringify(headers)}`)
    if (data.jsonBody) options.push(`body: JSON.stringify(${JSON.stringify(body ?? {})})`)
    return `const response = await fetch(${JSON.stringify(url)}, { ${options.join(', ')} })\nconsole.log(await response.json())`
  },
}

function sampleHeaders(data: PlaygroundData): Record<string, string> {
  if (data.auth?.method === 'bearer') return { Authorization: 'Bearer <token>' }
  if (data.auth?.method === 'key') return { [data.auth.name ?? 'X-API-Key']: '<key>' }
  return {}
}

/** A JSON value as a Python literal: JSON's true, false and null are spelled True, False and None. */
function pythonLiteral(value: unknown): string {
  if (value === null) return 'None'
  if (typeof value === 'boolean') return value ? 'True' : 'False'
  if (Array.isArray(value)) return `[${value.map(pythonLiteral).join(', ')}]`
  if (isObject(value))
    return `{${Object.entries(value)
      .map(([key, each]) => `${JSON.stringify(key)}: ${pythonLiteral(each)}`)
      .join(', ')}}`
  return JSON.stringify(value) ?? 'None'
}

/** Text inside single quotes for a POSIX shell: each `'` closes, escapes and reopens. */
function shellQuoted(text: string): string {
  return text.replace(/'/g, `'\\''`)
}

/** A path parameter the form must have before it can send (query and header ones may stay empty). */
const requiredInPath = (parameter: { in: string; required?: boolean }) =>
  parameter.required === true && parameter.in === 'path'

function authMethodOf(method: 'bearer' | 'basic' | 'key' | 'cobo' | undefined): 'bearer' | 'basic' | 'key' {
  if (method === undefined) return 'bearer'
  return method === 'cobo' ? 'key' : method
}
