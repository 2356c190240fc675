import { isCurrentShape } from '../current-shape'
import { buildCurrentNavigation } from './current'
import type { NavEntry, NavLink, NavSection, Navigation } from './model'
import { isExternal, pagePathOf } from './paths'

type Json = Record<string, unknown>

/**
 * The normalised navigation of a docs.json that validated (in either shape). Values of the wrong type are
 * skipped rather than trusted: a revision stored under an older schema may lack what is required now.
 */
export function navigationOf(config: Json): Navigation {
  return isCurrentShape(config) ? buildCurrentNavigation(config) : buildSpecNavigation(config)
}

const isObject = (value: unknown): value is Json => typeof value === 'object' && value !== null && !Array.isArray(value)
const text = (value: unknown): string | undefined => (typeof value === 'string' ? value : undefined)

/** Collects page paths in order, each once. */
export class PageList {
  readonly pages: string[] = []
  private readonly seen = new Set<string>()

  add(entry: string): string {
    const path = pagePathOf(entry)
    if (!this.seen.has(path)) {
      this.seen.add(path)
      this.pages.push(path)
    }
    return path
  }
}

function buildSpecNavigation(config: Json): Navigation {
  const list = new PageList()
  const openapi = new Set<string>()
  const groupOf = (group: Json): NavEntry => ({
    kind: 'group',
    name: text(group.group) ?? '',
    entries: (Array.isArray(group.pages) ? group.pages : []).flatMap((page): NavEntry[] => {
      if (typeof page === 'string') return [{ kind: 'page', path: list.add(page) }]
      return isObject(page) ? [groupOf(page)] : []
    }),
    // Pages generated from an OpenAPI document join the group (docs-site/openapi-splice.ts).
    openapi: group.openapi,
  })
  const tree = (Array.isArray(config.navigation) ? config.navigation : []).filter(isObject).map(groupOf)
  const topAnchor = isObject(config.topAnchor) ? config.topAnchor : {}
  const placeable = (entry: unknown): entry is Json & { name: string; url: string } =>
    isObject(entry) && typeof entry.name === 'string' && typeof entry.url === 'string'
  const placement = (url: string) => (isExternal(url) ? { external: url.trim() } : { prefix: pagePathOf(url) })
  const tabs: NavSection[] = (Array.isArray(config.tabs) ? config.tabs : [])
    .filter(placeable)
    .map((tab) => ({ kind: 'tab', name: tab.name, ...placement(tab.url), version: text(tab.version) }))
  const anchors: NavSection[] = (Array.isArray(config.anchors) ? config.anchors : [])
    .filter(placeable)
    .map((anchor) => ({
      kind: 'anchor',
      name: anchor.name,
      ...placement(anchor.url),
      icon: text(anchor.icon),
      iconType: text(anchor.iconType),
      color: anchor.color as NavSection['color'],
      version: text(anchor.version),
      isDefaultHidden: anchor.isDefaultHidden === true ? true : undefined,
    }))
  for (const source of [config.openapi].flat()) if (typeof source === 'string') openapi.add(source)
  const cta = isObject(config.topbarCtaButton) ? config.topbarCtaButton : undefined
  const ctaUrl = text(cta?.url)
  const logo = config.logo
  return {
    shape: 'spec',
    pages: list.pages,
    top: {
      kind: 'top',
      name: text(topAnchor.name) ?? 'Documentation',
      icon: text(topAnchor.icon) ?? 'book-open',
      iconType: text(topAnchor.iconType),
    },
    tabs,
    anchors,
    tree,
    versions: (Array.isArray(config.versions) ? config.versions : []).flatMap((version) => {
      const name = typeof version === 'string' ? version : isObject(version) ? text(version.name) : undefined
      return name === undefined ? [] : [name]
    }),
    navbar: {
      links: (Array.isArray(config.topbarLinks) ? config.topbarLinks : []).flatMap((link): NavLink[] =>
        isObject(link) && typeof link.name === 'string' && typeof link.url === 'string'
          ? [{ label: link.name, href: link.url }]
          : [],
      ),
      primary:
        cta === undefined || ctaUrl === undefined
          ? undefined
          : cta.type === 'github'
            ? { kind: 'github', href: ctaUrl }
            : { kind: 'button', label: text(cta.name), href: ctaUrl },
    },
    footer: { socials: socialsOf(config.footerSocials), columns: [] },
    favicon: typeof config.favicon === 'string' ? { light: config.favicon } : undefined,
    logo: logoOf(logo),
    openapi: [...openapi],
  }
}

/** `footerSocials` / `footer.socials`: platform → URL, strings only. */
export function socialsOf(value: unknown): [string, string][] {
  if (!isObject(value)) return []
  return Object.entries(value).flatMap(([platform, url]): [string, string][] =>
    typeof url === 'string' ? [[platform, url]] : [],
  )
}

export function logoOf(logo: unknown): Navigation['logo'] {
  if (typeof logo === 'string') return { light: logo }
  if (!isObject(logo) || typeof logo.light !== 'string') return undefined
  return { light: logo.light, dark: text(logo.dark), href: text(logo.href) }
}
