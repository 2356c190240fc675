/**
 * Escaping for server-rendered HTML (the docs site, the console). Everything a docs.json, a page author or a token's
 * owner wrote passes through it before it reaches markup: a reader's browser must never run what they wrote.
 */

const TEXT_ESCAPES: Record<string, string> = { '&': '&amp;', '<': '&lt;', '>': '&gt;', '"': '&quot;', "'": '&#39;' }

/** Text or an attribute value (always double-quoted by the callers). */
export function escapeHtml(value: string): string {
  return value.replace(/[&<>"']/g, (character) => TEXT_ESCAPES[character]!)
}
