import type { DocsConfig } from '../docs-format/docs-json'
import type { NavEntry, NavSection, Navigation } from '../docs-format/navigation/model'
import { navigationOf } from '../docs-format/navigation/build'
import { type GeneratedNavigation, NO_GENERATED, withGeneratedPages } from './openapi-splice'

export type { NavEntry }
export type Section = NavSection

/**
 * Where each page of the site lives, from the normalised navigation of docs.json (either shape; see
 * docs-format/navigation). Built once per docs.json revision; every question after that is a lookup.
 */
export class SiteMap {
  readonly navigation: Navigation
  /** Every page `navigation` names, in order, each once. */
  readonly pages: string[]
  readonly top: Section
  readonly tabs: Section[]
  readonly anchors: Section[]
  private readonly named: Set<string>
  /**
   * Spec shape: tabs and anchors that claim pages, by prefix segment: a path's section is the deepest claimant
   * on its way down, so finding it costs the path's length, not the number of tabs (a docs.json of thousands of
   * tabs and pages must not make every page cost their product).
   */
  private readonly claimants: PrefixNode = { children: new Map() }
  /** Current shape: the section each named page first appears in. */
  private readonly homes = new Map<string, Section>()
  /** Each section's first page, found once. */
  private readonly firstPages = new Map<Section, string>()

  /**
   * `generated`: what the repository's OpenAPI documents add to navigation (OpenApiDocuments.generatedNavigation),
   * spliced in where groups and sections name them (see openapi-splice.ts).
   */
  constructor(config: DocsConfig, generated: GeneratedNavigation = NO_GENERATED) {
    this.navigation = withGeneratedPages(navigationOf(config as unknown as Record<string, unknown>), generated)
    this.pages = this.navigation.pages
    this.named = new Set(this.pages)
    this.top = this.navigation.top
    this.tabs = this.navigation.tabs
    this.anchors = this.navigation.anchors
    if (this.navigation.shape === 'current') {
      for (const section of [this.top, ...this.tabs, ...this.anchors]) {
        for (const path of pagesIn(section.entries ?? [])) if (!this.homes.has(path)) this.homes.set(path, section)
      }
    } else {
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
    }
    for (const path of this.pages) {
      // A page of a hidden item belongs to no section's sidebar, so it is no section's landing either.
      if (this.navigation.shape === 'current' && !this.homes.has(path)) continue
      const section = this.sectionOf(path)
      if (!this.firstPages.has(section)) this.firstPages.set(section, path)
    }
  }

  /** Whether `navigation` names the page. */
  names(path: string): boolean {
    return this.named.has(path)
  }

  /** The section that holds `path`, else the top one. */
  sectionOf(path: string): Section {
    if (this.navigation.shape === 'current') return this.homes.get(path) ?? this.top
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

  /** The sidebar for a section: its own entries, or (spec shape) `navigation` with only its pages. */
  sidebar(section: Section): NavEntry[] {
    if (this.navigation.shape === 'current') return section.entries ?? []
    const keep = (path: string) => this.sectionOf(path) === section
    return prune(this.navigation.tree, keep)
  }

  /** Where a link to a section goes: its first page, else its landing or prefix as a page path. */
  landing(section: Section): string | undefined {
    if (section.external !== undefined) return undefined
    return this.firstPages.get(section) ?? section.landing ?? section.prefix
  }

  /** The site's home page: the first page of the top section, else the first page of all. */
  get home(): string | undefined {
    return this.landing(this.top) ?? this.pages[0]
  }

  /** The sections of the tab row: the top one first in the spec shape, and only when there are tabs. */
  get tabRow(): Section[] {
    if (this.tabs.length === 0) return []
    if (this.navigation.shape === 'spec') return [this.top, ...this.tabs]
    return this.top.entries === undefined ? this.tabs : [this.top, ...this.tabs]
  }

  /** The sections listed at the top of the sidebar. */
  get anchorList(): Section[] {
    if (this.navigation.shape === 'spec') return [this.top, ...this.anchors]
    if (this.anchors.length === 0) return []
    return this.top.entries === undefined || this.tabs.length > 0 ? this.anchors : [this.top, ...this.anchors]
  }
}

function* pagesIn(entries: NavEntry[]): Generator<string> {
  for (const entry of entries) {
    if (entry.kind === 'page') yield entry.path
    else {
      if (entry.root !== undefined) yield entry.root
      yield* pagesIn(entry.entries)
    }
  }
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
