import { safeUrl, URL_SCHEME } from './html'

import { pagePathOf, trimSlashes } from '../docs-format/navigation/paths'

export { pagePathOf, trimSlashes }

/** Where the site lives on this server. */
export const SITE_BASE = '/docs/'
/** The site's own stylesheet and script, and the built-in images (logo, favicon), all embedded. */
export const ASSET_BASE = '/docs/_assets/'

/** A `/`-separated path with each segment percent-encoded. */
function encodePath(path: string): string {
  return path.split('/').map(encodeURIComponent).join('/')
}

/** The site URL of a page path (`plants/overview` → `/docs/plants/overview`). */
export function pageUrl(path: string): string {
  return SITE_BASE + encodePath(path)
}

/**
 * An image path from docs.json (`logo`, `favicon`, `backgroundImage`). Absolute http(s) URLs and
 * `data:image/…` URLs are used as written (an `<img>` never runs script, whatever the image holds);
 * a path inside the docs repository (`/logo/light.svg`, `images/bg.png`) is served by the site at
 * `/docs/{path}`: the author's stored file, else Trellis's built-in one at that path. Anything else: none.
 */
export function imageUrl(value: string | undefined): string | undefined {
  if (value === undefined) return undefined
  const trimmed = value.trim()
  if (/^data:image\/(png|gif|jpeg|webp|svg\+xml|x-icon|vnd\.microsoft\.icon)[;,]/i.test(trimmed)) return trimmed
  const safe = safeUrl(trimmed)
  if (safe === undefined) return undefined
  if (/^https?:/i.test(safe)) return safe
  const url = repositoryFileUrl(safe, '')
  if (url === undefined) return undefined
  // A file, named as written in docs.json (`/logo/My Logo.svg`): each segment encoded once, whatever was escaped.
  const [path = ''] = splitSuffix(url)
  return SITE_BASE + encodePath(path.slice(SITE_BASE.length).split('/').map(decodedOrAsIs).join('/'))
}

function decodedOrAsIs(segment: string): string {
  try {
    return decodeURIComponent(segment)
  } catch {
    return segment
  }
}

/**
 * The site URL of a repository file named in a page (`/images/a.png` from the root, `a.png` or `../a.png` from
 * the page's folder `from`), its `?query#fragment` kept; undefined for a URL with a scheme or `//`, or one that
 * climbs above the root.
 */
export function repositoryFileUrl(written: string, from: string): string | undefined {
  if (URL_SCHEME.test(written) || written.startsWith('//')) return undefined
  const [path = '', suffix] = splitSuffix(written)
  if (path === '') return undefined
  const folder = from.includes('/') ? from.slice(0, from.lastIndexOf('/') + 1) : ''
  const parts: string[] = []
  for (const part of (path.startsWith('/') ? path : folder + path).split('/')) {
    if (part === '..') {
      if (parts.pop() === undefined) return undefined
    } else if (part !== '.' && part !== '') parts.push(part)
  }
  if (parts.length === 0) return undefined
  return SITE_BASE + parts.join('/') + suffix
}

/**
 * A link target from docs.json (`logo.href`, `topbarLinks`, `topbarCtaButton.url`): absolute URLs as written;
 * a root-relative path that names a page of the site, or `/` itself, goes to the site; any other
 * root-relative path is a path of this server (`/openapi.json`). Unsafe schemes: undefined.
 */
export function linkUrl(value: string | undefined, isPage: (path: string) => boolean): string | undefined {
  const safe = safeUrl(value)
  if (safe === undefined) return undefined
  if (URL_SCHEME.test(safe)) return safe
  const [path = '', rest = ''] = splitSuffix(safe)
  const page = pagePathOf(path)
  if (page === '') return path.startsWith('/') ? SITE_BASE + rest : safe
  if (isPage(page)) return pageUrl(page) + rest
  return safe.startsWith('/') ? safe : `/${safe}`
}

/** A URL as its path and its `?query#fragment` (empty when it has neither). */
export function splitSuffix(url: string): [string, string] {
  const at = url.search(/[?#]/)
  return at === -1 ? [url, ''] : [url.slice(0, at), url.slice(at)]
}

/** A repository URL the feedback buttons can send readers to: a github CTA, else footerSocials.github. */
export function repositoryOf(
  cta: { type?: string; url?: string } | undefined,
  socials: Record<string, string | undefined> | undefined,
): string | undefined {
  const candidate = cta?.type === 'github' ? cta.url : socials?.github
  const safe = safeUrl(candidate)
  return safe !== undefined && /^https?:\/\//i.test(safe) ? trimSlashes(safe, 'end') : undefined
}

/** `owner/repo` from a repository URL, for the github CTA's label. */
export function repositoryName(url: string): string {
  const path = url
    .replace(/^https?:\/\/[^/]+\/?/i, '')
    .split('/')
    .filter(Boolean)
  return path.slice(0, 2).join('/') || url
}

/**
 * A link in a page's Markdown, as a site URL when it names a page (relative links resolve against the page's folder).
 */
export function pageHrefFor(target: string, from: string, isPage: (path: string) => boolean): string | undefined {
  if (target === '') return undefined
  const folder = from.includes('/') ? from.slice(0, from.lastIndexOf('/') + 1) : ''
  const joined = target.startsWith('/') ? target : folder + target
  const parts: string[] = []
  for (const part of joined.split('/')) {
    if (part === '..') parts.pop()
    else if (part !== '.' && part !== '') parts.push(part)
  }
  const candidate = pagePathOf(parts.join('/'))
  return isPage(candidate) ? pageUrl(candidate) : undefined
}
