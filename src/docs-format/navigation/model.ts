/**
 * The one normalised navigation of a docs.json, whichever its shape: what the site draws (sections, sidebars,
 * navbar, footer, favicon) and what `trellis docs push` uploads (the pages it names). Built by `navigationOf`
 * (see build.ts); other features hang off it (generated OpenAPI groups: `openapi` of a group or section).
 */

/** An entry of a sidebar: a page path, or a group of entries (groups nest to any depth). */
export type NavEntry = { kind: 'page'; path: string } | NavGroup

type NavGroup = {
  kind: 'group'
  name: string
  entries: NavEntry[]
  /** The page the group's name links to (current shape: `root`). */
  root?: string
  icon?: NavIcon
  expanded?: boolean
  tag?: string
  /** The group's own OpenAPI source(s), as written: pages generated from it belong to the group. */
  openapi?: unknown
}

export type NavIcon = { name: string; style?: string }

/**
 * A part of the site that the sidebar shows on its own. In the spec shape a tab or an anchor claims the pages
 * under its `prefix`, and the top anchor holds the rest; in the current shape every tab, anchor, dropdown,
 * product, version or language that holds groups or pages is a section with its own `entries`.
 */
export type NavSection = {
  kind: 'top' | 'tab' | 'anchor'
  name: string
  /** Spec shape: the page-path prefix, without slashes at either end; undefined for the top anchor. */
  prefix?: string
  /** Its own sidebar (current shape). */
  entries?: NavEntry[]
  /** An absolute link instead of pages. */
  external?: string
  icon?: string
  iconType?: string
  color?: string | { from: string; to: string }
  /** Shown only when this version is picked. */
  version?: string
  /** Hidden until a reader is inside it. */
  isDefaultHidden?: boolean
  /** The section it sits in (current shape: a dropdown inside a tab …), for marking the tab row. */
  parent?: NavSection
  /** The first page of the section or anything inside it (current shape), where a link to it goes. */
  landing?: string
}

export type NavLink = { label: string; href: string; icon?: string }

/** The navbar's call to action: a button, or the GitHub or Discord button. */
export type NavPrimary = { kind: 'button' | 'github' | 'discord'; label?: string; href: string }

export type Navigation = {
  shape: 'spec' | 'current'
  /** Every page the navigation names, in order, each once (group roots included). */
  pages: string[]
  top: NavSection
  tabs: NavSection[]
  anchors: NavSection[]
  /** Spec shape: the whole `navigation` tree, which tabs and anchors divide by prefix. */
  tree: NavEntry[]
  /** Version names for the version picker, the default first. */
  versions: string[]
  navbar: { links: NavLink[]; primary?: NavPrimary }
  footer: { socials: [platform: string, url: string][]; columns: { header?: string; items: NavLink[] }[] }
  favicon?: { light: string; dark?: string }
  logo?: { light: string; dark?: string; href?: string }
  /** OpenAPI sources named anywhere in the navigation or at the top level, as written, each once. */
  openapi: string[]
}
