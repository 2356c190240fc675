import type { DocsConfig } from '../docs-format/docs-json'
import { URL_SCHEME } from './html'
import { pagePathOf } from './links'
import { endpointKey, type GeneratedPage, groupOpenApi } from './openapi-navigation'

/** One entry of the sidebar: a page path, or a group of entries (groups nest to any depth). */
export type NavEntry = { kind: 'page'; path: string } | { kind: 'group'; name: string; entries: NavEntry[] }

/**
 * A part of the site that the sidebar shows on its own: the top anchor (every page no tab or anchor claims),
 * or a tab or an anchor whose `url` is a page-path prefix. An anchor whose url is absolute is a plain link
 * and claims no pages (`external`).
 */
export type Section = {
  kind: 'top' | 'tab' | 'anchor'
  name: string
  /** The page-path prefix, without slashes at either end; undefined for the top anchor. */
  prefix?: string
  external?: string
  icon?: string
  iconType?: string
  color?: string | { from: string; to: string }
  version?: string
  isDefaultHidden?: boolean
}

type GroupConfig = DocsConfig['navigation'][number]

/**
 * What docs.json's `navigation`, `tabs`, `anchors` and `topAnchor` say about where each page lives. Built
 * once per docs.json revision; every question after that is a lookup.
 */
export class SiteMap {
  /** Every page `navigation` names, in order, each once. */
  readonly pages: string[] = []
  readonly top: Section
  readonly tabs: Section[]
  readonly anchors: Section[]
  private readonly named = new Set<string>()
  private readonly tree: NavEntry[]
  /**
   * Tabs and anchors that claim pages, by prefix segment: a path's section is the deepest claimant on its
   * way down, so finding it costs the path's length, not the number of tabs (a docs.json of thousands of
   * tabs and pages must not make every page cost their product).
   */
  private readonly claimants: PrefixNode = { children: new Map() }
  /** Each section's first page in `navigation`, found once. */
  private readonly firstPages = new Map<Section, string>()

  /**
   * `generated`: what OpenAPI documents add to navigation (see OpenApiDocuments.generatedNavigation): the pages of
   * each group's `openapi` by its source as written, and `"METHOD /path"` entries by endpointKey. A group whose
   * document is not there lists only its own pages; an entry whose operation is not there is left as written.
   */
  constructor(
    config: DocsConfig,
    private readonly generated: {
      groups: ReadonlyMap<string, GeneratedPage[]>
      endpoints: ReadonlyMap<string, GeneratedPage>
    } = { groups: new Map(), endpoints: new Map() },
  ) {
    const top = typeof config.openapi === 'string' ? config.openapi : config.openapi?.[0]
    this.tree = config.navigation.map((group) => this.entryOf(group, top?.trim()))
    const topAnchor = config.topAnchor
    this.top = {
      kind: 'top',
      name: topAnchor?.name ?? 'Documentation',
      icon: topAnchor?.icon ?? 'book-open',
      iconType: topAnchor?.iconType,
    }
    // A docs.json stored before tabs and anchors needed name and url (2026-11-25) may still lack them:
    // such an entry cannot be placed or labelled, so the site leaves it out rather than failing every page.
    this.tabs = (config.tabs ?? [])
      .filter(placeable)
      .map((tab) => ({ kind: 'tab' as const, name: tab.name, ...placement(tab.url) }))
    this.anchors = (config.anchors ?? []).filter(placeable).map((anchor) => ({
      kind: 'anchor' as const,
      name: anchor.name,
      ...placement(anchor.url),
      icon: anchor.icon,
      iconType: anchor.iconType,
      color: anchor.color,
      version: anchor.version,
      isDefaultHidden: anchor.isDefaultHidden,
    }))
    // The first claimant of a prefix wins, tabs before anchors, as the order of docs.json has it.
    for (const section of [...this.tabs, ...this.anchors]) {
      if (section.prefix === undefined || section.prefix === '') continue
      let node = this.claimants
      for (const segment of section.prefix.split('/')) {
        let child = node.children.get(segment)
        if (child === undefined) node.children.set(segment, (child = { children: new Map() }))
        node = child
      }
      node.section ??= section
    }
    for (const path of this.pages) {
      const section = this.sectionOf(path)
      if (!this.firstPages.has(section)) this.firstPages.set(section, path)
    }
  }

  /** Whether `navigation` names the page. */
  names(path: string): boolean {
    return this.named.has(path)
  }

  /** The tab or anchor whose prefix holds `path`, else the top anchor. */
  sectionOf(path: string): Section {
    let found = this.top
    let node: PrefixNode | undefined = this.claimants
    for (let start = 0; node !== undefined; ) {
      const end = path.indexOf('/', start)
      node = node.children.get(end === -1 ? path.slice(start) : path.slice(start, end))
      if (node?.section !== undefined) found = node.section
      if (end === -1) break
      start = end + 1
    }
    return found
  }

  /** The sidebar for a section: `navigation` with only the pages of that section, empty groups left out. */
  sidebar(section: Section): NavEntry[] {
    const keep = (path: string) => this.sectionOf(path) === section
    return prune(this.tree, keep)
  }

  /** Where a link to a section goes: its first page in `navigation`, else its prefix as a page path. */
  landing(section: Section): string | undefined {
    if (section.external !== undefined) return undefined
    return this.firstPages.get(section) ?? section.prefix
  }

  /** The site's home page: the first page of the top anchor, else the first page of all. */
  get home(): string | undefined {
    return this.landing(this.top) ?? this.pages[0]
  }

  private entryOf(group: GroupConfig, inherited: string | undefined): NavEntry {
    const openapi = groupOpenApi((group as { openapi?: unknown }).openapi)
    const source = openapi?.source ?? inherited
    const pages: unknown[] = Array.isArray(group.pages) ? group.pages : []
    const entries = pages.map((page): NavEntry => {
      if (typeof page !== 'string') return this.entryOf(page as GroupConfig, source)
      const endpoint = this.generated.endpoints.get(endpointKey(page, source))
      return this.pageEntry(endpoint?.path ?? pagePathOf(page))
    })
    const generated = openapi === undefined ? undefined : this.generated.groups.get(openapi.source)
    if (generated !== undefined) entries.push(...this.generatedEntries(generated))
    return { kind: 'group', name: group.group, entries }
  }

  private pageEntry(path: string): NavEntry {
    if (!this.named.has(path)) {
      this.named.add(path)
      this.pages.push(path)
    }
    return { kind: 'page', path }
  }

  /** Generated pages as Mintlify lists them: untagged ones first, then a subgroup per tag, in document order. */
  private generatedEntries(pages: GeneratedPage[]): NavEntry[] {
    const untagged: NavEntry[] = []
    const byTag = new Map<string, NavEntry[]>()
    for (const page of pages) {
      const entry = this.pageEntry(page.path)
      if (page.tag === undefined) untagged.push(entry)
      else {
        let tagged = byTag.get(page.tag)
        if (tagged === undefined) byTag.set(page.tag, (tagged = []))
        tagged.push(entry)
      }
    }
    return [...untagged, ...[...byTag].map(([name, entries]): NavEntry => ({ kind: 'group', name, entries }))]
  }
}

function placeable(entry: { name?: unknown; url?: unknown }): boolean {
  return typeof entry.name === 'string' && typeof entry.url === 'string'
}

function placement(url: string): { prefix?: string; external?: string } {
  const trimmed = url.trim()
  if (URL_SCHEME.test(trimmed) || trimmed.startsWith('//')) return { external: trimmed }
  return { prefix: pagePathOf(url) }
}

/** A node of the claimants' prefix tree: one segment deeper per level. */
type PrefixNode = { children: Map<string, PrefixNode>; section?: Section }

function prune(entries: NavEntry[], keep: (path: string) => boolean): NavEntry[] {
  const kept: NavEntry[] = []
  for (const entry of entries) {
    if (entry.kind === 'page') {
      if (keep(entry.path)) kept.push(entry)
    } else {
      const inner = prune(entry.entries, keep)
      if (inner.length > 0) kept.push({ ...entry, entries: inner })
    }
  }
  return kept
}
