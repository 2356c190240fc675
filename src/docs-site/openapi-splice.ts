import type { NavEntry, Navigation } from '../docs-format/navigation/model'
import { pagePathOf } from '../docs-format/navigation/paths'
import { type GeneratedPage, groupOpenApi } from './openapi-navigation'

/**
 * What the repository's OpenAPI documents add to navigation (OpenApiDocuments.generatedNavigation): the pages of
 * each `openapi` source as written, and `"METHOD /path"` page entries by endpointKey.
 */
export type GeneratedNavigation = {
  /** The document a `"METHOD /path"` entry outside any `openapi` group names: docs.json's first `openapi`. */
  top?: string
  groups: ReadonlyMap<string, GeneratedPage[]>
  endpoints: ReadonlyMap<string, GeneratedPage>
}

export const NO_GENERATED: GeneratedNavigation = { groups: new Map(), endpoints: new Map() }

/**
 * `navigation` with its OpenAPI pages in place, in either docs.json shape: a group (or, in the current shape, a
 * tab, anchor or other level, which the navigation model gives as a nameless group around its entries) whose
 * `openapi` names a stored document lists one page per operation after its own pages, untagged first and then a
 * subgroup per tag, as Mintlify lists them; a `"METHOD /path"` entry becomes the page of that operation. Nameless
 * groups are dissolved into their parent. Generated pages join `pages`, so the site and push know them.
 */
export function withGeneratedPages(navigation: Navigation, generated: GeneratedNavigation): Navigation {
  const pages = [...navigation.pages]
  const named = new Set(pages)
  const name = (path: string) => {
    if (!named.has(path)) {
      named.add(path)
      pages.push(path)
    }
  }
  const splice = (entries: NavEntry[], inherited: string | undefined): NavEntry[] =>
    entries.flatMap((entry): NavEntry[] => {
      if (entry.kind === 'page') {
        const endpoint = generated.endpoints.get(endpointKey(entry.path, inherited))
        if (endpoint === undefined) return [entry]
        name(endpoint.path)
        return [{ kind: 'page', path: endpoint.path }]
      }
      const own = groupOpenApi(entry.openapi)
      const source = own?.source ?? inherited
      const inner = splice(entry.entries, source)
      const extra = own === undefined ? [] : listed(generated.groups.get(own.source) ?? [], name)
      if (entry.name === '' && entry.root === undefined) return [...inner, ...extra]
      return [{ ...entry, entries: [...inner, ...extra] }]
    })
  const top = generated.top
  const spliced = (entries: NavEntry[] | undefined) => (entries === undefined ? undefined : splice(entries, top))
  const section = <T extends { entries?: NavEntry[] }>(value: T): T =>
    value.entries === undefined ? value : Object.assign(value, { entries: spliced(value.entries) })
  if (generated.groups.size === 0 && generated.endpoints.size === 0) return navigation
  const tree = splice(navigation.tree, top)
  for (const each of [navigation.top, ...navigation.tabs, ...navigation.anchors]) section(each)
  return { ...navigation, tree, pages }
}

/** How a `"METHOD /path"` page entry is keyed: its page path, with the document it inherits. */
export function endpointKey(entry: string, inherited: string | undefined): string {
  return `${inherited ?? ''}\n${pagePathOf(entry)}`
}

/** Generated pages as Mintlify lists them: untagged ones first, then a subgroup per tag, in document order. */
function listed(pages: GeneratedPage[], name: (path: string) => void): NavEntry[] {
  const untagged: NavEntry[] = []
  const byTag = new Map<string, NavEntry[]>()
  for (const page of pages) {
    name(page.path)
    const entry: NavEntry = { kind: 'page', path: page.path }
    if (page.tag === undefined) untagged.push(entry)
    else {
      let tagged = byTag.get(page.tag)
      if (tagged === undefined) byTag.set(page.tag, (tagged = []))
      tagged.push(entry)
    }
  }
  return [...untagged, ...[...byTag].map(([tag, entries]): NavEntry => ({ kind: 'group', name: tag, entries }))]
}
