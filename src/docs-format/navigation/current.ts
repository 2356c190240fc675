import { DIVISIONS, type DivisionKey } from '../current-shape/navigation'
import { logoOf, PageList, socialsOf } from './build'
import type { NavEntry, NavIcon, NavLink, NavPrimary, NavSection, Navigation } from './model'

type Json = Record<string, unknown>

const isObject = (value: unknown): value is Json => typeof value === 'object' && value !== null && !Array.isArray(value)
const text = (value: unknown): string | undefined => (typeof value === 'string' ? value : undefined)

/** Deeper than any real navigation; the validator's depth limit comes first. */
const MAX_DEPTH = 64

/** Where a division's items go on the site: tabs in the tab row, everything else in the sidebar's list. */
const KIND_OF: Record<DivisionKey, 'tab' | 'anchor'> = {
  products: 'anchor',
  languages: 'anchor',
  versions: 'anchor',
  tabs: 'tab',
  dropdowns: 'anchor',
  anchors: 'anchor',
  menu: 'anchor',
}

type Context = { version?: string; hidden?: boolean; parent?: NavSection }

/**
 * The current shape's navigation, flattened into sections: every tab, anchor, dropdown, product, version or
 * language that holds groups or pages becomes a section with its own sidebar; the root's own groups and pages
 * are the top section. Sections inside a version carry it (the version picker shows them); sections of a
 * language other than the default are hidden until a reader is inside them.
 */
export function buildCurrentNavigation(config: Json): Navigation {
  const list = new PageList()
  const openapi = new Set<string>()
  const tabs: NavSection[] = []
  const anchors: NavSection[] = []
  const versions: string[] = []
  const addOpenapi = (value: unknown) => {
    for (const source of [value].flat()) {
      if (typeof source === 'string') openapi.add(source)
      else if (isObject(source) && typeof source.source === 'string') openapi.add(source.source)
    }
  }

  const entryOf = (page: unknown, depth: number): NavEntry[] => {
    if (typeof page === 'string') return [{ kind: 'page', path: list.add(page) }]
    if (!isObject(page) || depth > MAX_DEPTH) return []
    if (page.hidden === true) return hidden(page, depth)
    addOpenapi(page.openapi)
    const root = typeof page.root === 'string' ? list.add(page.root) : undefined
    return [
      {
        kind: 'group',
        name: text(page.group) ?? '',
        entries: (Array.isArray(page.pages) ? page.pages : []).flatMap((child) => entryOf(child, depth + 1)),
        root,
        icon: iconOf(page.icon),
        expanded: page.expanded === true ? true : undefined,
        tag: text(page.tag),
        openapi: page.openapi,
      },
    ]
  }

  /** A hidden item is left out of the sidebar, but its pages are still published (and pushed). */
  const hidden = (item: Json, depth: number): NavEntry[] => {
    if (depth > MAX_DEPTH) return []
    if (typeof item.root === 'string') list.add(item.root)
    for (const key of ['groups', 'pages', ...Object.keys(DIVISIONS)]) {
      for (const child of Array.isArray(item[key]) ? item[key] : []) {
        if (typeof child === 'string') list.add(child)
        else if (isObject(child)) hidden(child, depth + 1)
      }
    }
    return []
  }

  const firstPageOf = (entries: NavEntry[]): string | undefined => {
    for (const entry of entries) {
      if (entry.kind === 'page') return entry.path
      const found = entry.root ?? firstPageOf(entry.entries)
      if (found !== undefined) return found
    }
    return undefined
  }

  /** Walks one level; returns the first page found in it or below, for the landing of the level's section. */
  const walk = (level: Json, section: NavSection | undefined, context: Context, depth: number): string | undefined => {
    if (depth > MAX_DEPTH) return undefined
    addOpenapi(level.openapi)
    const entries = [
      ...(Array.isArray(level.groups) ? level.groups : []).flatMap((group) => entryOf(group, depth + 1)),
      ...(Array.isArray(level.pages) ? level.pages : []).flatMap((page) => entryOf(page, depth + 1)),
    ]
    let first = firstPageOf(entries)
    // A level's own `openapi` (a tab of generated API pages): a nameless group around its entries carries it, which
    // the site dissolves once it has added the pages (docs-site/openapi-splice.ts).
    if (section !== undefined && level.openapi !== undefined)
      section.entries = [{ kind: 'group', name: '', entries, openapi: level.openapi }]
    else if (section !== undefined && entries.length > 0) section.entries = entries
    if (isObject(level.global)) walkGlobal(level.global, context)
    for (const key of Object.keys(DIVISIONS) as DivisionKey[]) {
      const items = level[key]
      if (!Array.isArray(items)) continue
      let index = 0
      for (const item of items) {
        if (!isObject(item)) continue
        if (item.hidden === true) {
          hidden(item, depth + 1)
          continue
        }
        const name = text(item[DIVISIONS[key]]) ?? ''
        const inner: Context = { ...context }
        if (key === 'versions') {
          if (!versions.includes(name)) item.default === true ? versions.unshift(name) : versions.push(name)
          inner.version = name
        }
        if (key === 'languages') inner.hidden = context.hidden === true || !(item.default === true || index === 0)
        index++
        const child: NavSection = sectionOf(KIND_OF[key], name, item, inner, section ?? context.parent)
        ;(child.kind === 'tab' ? tabs : anchors).push(child)
        const landing = walk(item, child, { ...inner, parent: child }, depth + 1)
        if (landing !== undefined) child.landing = landing
        first ??= landing
      }
    }
    return first
  }

  /** `global`: links shown beside every section (anchors and tabs with an href). */
  const walkGlobal = (global: Json, context: Context) => {
    for (const key of Object.keys(DIVISIONS) as DivisionKey[]) {
      for (const item of Array.isArray(global[key]) ? global[key] : []) {
        if (!isObject(item) || typeof item.href !== 'string' || item.hidden === true) continue
        const section = sectionOf(KIND_OF[key], text(item[DIVISIONS[key]]) ?? '', item, context, undefined)
        ;(section.kind === 'tab' ? tabs : anchors).push(section)
      }
    }
  }

  const navigation = isObject(config.navigation) ? config.navigation : {}
  const top: NavSection = { kind: 'top', name: text(config.name) ?? 'Documentation' }
  const landing = walk(navigation, top, {}, 0)
  if (top.entries === undefined) top.landing = landing
  addOpenapi(isObject(config.api) ? config.api.openapi : undefined)
  const navbar = isObject(config.navbar) ? config.navbar : {}
  const footer = isObject(config.footer) ? config.footer : {}
  const favicon = config.favicon
  return {
    shape: 'current',
    pages: list.pages,
    top,
    tabs,
    anchors,
    tree: top.entries ?? [],
    versions,
    navbar: { links: linksOf(navbar.links), primary: primaryOf(navbar.primary) },
    footer: {
      socials: socialsOf(footer.socials),
      columns: (Array.isArray(footer.links) ? footer.links : []).filter(isObject).map((column) => ({
        header: text(column.header),
        items: linksOf(column.items),
      })),
    },
    favicon:
      typeof favicon === 'string'
        ? { light: favicon }
        : isObject(favicon) && typeof favicon.light === 'string'
          ? { light: favicon.light, dark: text(favicon.dark) }
          : undefined,
    logo: logoOf(config.logo),
    openapi: [...openapi],
  }
}

function sectionOf(
  kind: 'tab' | 'anchor',
  name: string,
  item: Json,
  context: Context,
  parent: NavSection | undefined,
): NavSection {
  const icon = iconOf(item.icon)
  const colour = isObject(item.color) ? (text(item.color.light) ?? text(item.color.dark)) : undefined
  const section: NavSection = { kind, name, icon: icon?.name, iconType: icon?.style, color: colour, parent }
  if (typeof item.href === 'string') section.external = item.href
  if (context.version !== undefined) section.version = context.version
  if (context.hidden === true) section.isDefaultHidden = true
  return section
}

function iconOf(icon: unknown): NavIcon | undefined {
  if (typeof icon === 'string') return { name: icon }
  if (isObject(icon) && typeof icon.name === 'string') return { name: icon.name, style: text(icon.style) }
  return undefined
}

function linksOf(value: unknown): NavLink[] {
  return (Array.isArray(value) ? value : []).flatMap((link): NavLink[] => {
    if (!isObject(link) || typeof link.href !== 'string') return []
    const label = text(link.label) ?? (link.type === 'github' ? 'GitHub' : link.type === 'discord' ? 'Discord' : '')
    return label === '' ? [] : [{ label, href: link.href, icon: iconOf(link.icon)?.name }]
  })
}

function primaryOf(value: unknown): NavPrimary | undefined {
  if (!isObject(value) || typeof value.href !== 'string') return undefined
  const kind = value.type === 'github' || value.type === 'discord' ? value.type : 'button'
  return { kind, label: text(value.label), href: value.href }
}
