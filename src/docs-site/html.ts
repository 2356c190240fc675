/**
 * Escaping for the site's server-rendered HTML. Everything a docs.json or a page author wrote passes
 * through one of these before it reaches markup: docs.json is written by `docs:write` tokens, and a
 * reader's browser must never run what such a token wrote.
 */

import { escapeHtml } from '../http/html-text'

export { escapeHtml }

/**
 * A URL from docs.json made safe for `href`/`src`: absolute http(s) and mailto URLs, and relative ones,
 * pass; anything else (javascript:, data:, vbscript:, a scheme hidden behind control characters) becomes
 * undefined, and the caller leaves the link out.
 */
/** A URL's scheme (`https:`, `javascript:`), captured; a URL without one is relative. */
export const URL_SCHEME = /^([a-zA-Z][a-zA-Z0-9+.-]*):/

export function safeUrl(value: string | undefined): string | undefined {
  if (value === undefined) return undefined
  const trimmed = value.trim()
  if (trimmed === '') return undefined
  // Browsers drop tabs and newlines inside a URL before reading its scheme ("java\tscript:"), so do the same.
  const compact = trimmed.replace(/[\u0000-\u001F\u007F\s]+/g, '')
  const scheme = URL_SCHEME.exec(compact)
  if (scheme === null) return compact.startsWith('//') ? undefined : trimmed
  const name = scheme[1]!.toLowerCase()
  return name === 'http' || name === 'https' || name === 'mailto' ? trimmed : undefined
}

/** A value for a CSS `url("…")` inside a `<style>` element: no quote, backslash, newline or `<` can end it early. */
export function cssUrl(value: string): string {
  return `url("${value.replace(/["\\\n\r\f<>]/g, (character) => `\\${character.charCodeAt(0).toString(16)} `)}")`
}

/** JSON for a `<script type="application/json">` block: `<` escaped so no `</script>` can close it. */
export function scriptJson(value: unknown): string {
  return JSON.stringify(value)
    .replace(/</g, '\\u003c')
    .replace(/\u2028/g, '\\u2028')
    .replace(/\u2029/g, '\\u2029')
}

/** `name="value"` pairs for the defined entries, escaped; `true` gives a bare attribute. */
export function attributes(values: Record<string, string | number | boolean | undefined>): string {
  let text = ''
  for (const [name, value] of Object.entries(values)) {
    if (value === undefined || value === false) continue
    text += value === true ? ` ${name}` : ` ${name}="${escapeHtml(String(value))}"`
  }
  return text
}
