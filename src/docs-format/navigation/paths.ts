/**
 * `text` without leading and trailing slashes, in linear time: `replace(/\/+$/, '')` backtracks over every
 * run of slashes, so a URL or a docs.json value with tens of thousands of them would cost seconds.
 */
export function trimSlashes(text: string, ends: 'both' | 'end' = 'both'): string {
  let start = 0
  let end = text.length
  if (ends === 'both') while (start < end && text.charCodeAt(start) === 47) start += 1
  while (end > start && text.charCodeAt(end - 1) === 47) end -= 1
  return text.slice(start, end)
}

/** A navigation entry as a page path: vendors write `intro`, `/intro` or `intro.mdx` for the same page. */
export function pagePathOf(entry: string): string {
  return trimSlashes(entry.trim()).replace(/\.mdx?$/, '')
}

/** A URL with a scheme (`https:`, `mailto:`) or protocol-relative (`//host`): a link out, not a page prefix. */
export function isExternal(url: string): boolean {
  const trimmed = url.trim()
  return /^[a-zA-Z][a-zA-Z0-9+.-]*:/.test(trimmed) || trimmed.startsWith('//')
}
