import { createHash } from 'node:crypto'
import type { DocsConfig } from '../docs-format/docs-json'
import { apiBaseUrls } from './api-settings'
import { attributes, escapeHtml, safeUrl } from './html'
import { iconSvg, socialIcon } from './icons'
import { FRAME_HOSTS } from './markdown-sanitize'
import { imageUrl, linkUrl, pageUrl, repositoryName, repositoryOf, SITE_BASE } from './links'
import { type NavEntry, type Section, SiteMap } from './site-map'
import { SNIPPET_FOLDER } from './snippets'
import { anchorBackground, anchorForeground, themeCss } from './theme'

/** One page of the site, ready to be wrapped in the layout. */
export type PageView = {
  config: DocsConfig
  map: SiteMap
  /** The page's path; undefined for the site's 404 page. */
  path: string | undefined
  title: string
  description?: string
  content: string
  headings: { level: number; id: string; text: string }[]
  /** The sidebar label of a page path. */
  labelOf: (path: string) => string
  isPage: (path: string) => boolean
  assets: { css: string; js: string }
  /** More `<meta>` tags for the head (docs.json `seo.metatags`, the page's Open Graph fields), as HTML. */
  meta?: string
  /** More URLs the page's playground may call (an MDX endpoint page's own), for connect-src. */
  connect?: string[]
}

/**
 * Sets the mode before the first paint, from the reader's saved choice, docs.json's `modeToggle.default`, or
 * the operating system's preference, in that order; `data-forced-mode` (modeToggle.isHidden with a default)
 * wins over a saved choice. It also marks the page as scripted (class `js`): only then does the phone layout hide the
 * navigation behind the menu button. Constant text, so the Content-Security-Policy allows it by hash.
 */
const MODE_SCRIPT =
  '(function(){var d=document.documentElement,m=d.dataset.forcedMode;' +
  "if(!m){try{m=localStorage.getItem('trellis-docs-mode')}catch(e){}}" +
  "if(m!=='light'&&m!=='dark'){m=d.dataset.defaultMode||(window.matchMedia&&matchMedia('(prefers-color-scheme: dark)').matches?'dark':'light')}" +
  "d.dataset.mode=m;d.classList.add('js')})()"
const MODE_SCRIPT_HASH = sha256(MODE_SCRIPT)

export type RenderedPage = { html: string; csp: string }

/** Navigation entries the site cannot link to: their addresses belong to the pages API and the site's files. */
const RESERVED_PREFIX = /^(?:pages|_assets|_files)(?:\/|$)/

/** The whole HTML document for `view`, and the Content-Security-Policy that lets exactly its own code run. */
export function renderLayout(view: PageView): RenderedPage {
  const { config, map } = view
  const theme = themeCss(config) + anchorStyles(map)
  const section = view.path === undefined ? map.top : map.sectionOf(view.path)
  const toggle = modeToggleOf(config)
  const forced = toggle?.isHidden === true && toggle.default !== undefined ? toggle.default : undefined
  const html = [
    `<!doctype html><html ` +
      `lang="en"${attributes({ 'data-mode': toggle?.default ?? 'light', 'data-default-mode': toggle?.default, 'data-forced-mode': forced })}>`,
    '<head><meta charset="utf-8"><meta name="viewport" content="width=device-width, initial-scale=1">',
    `<title>${escapeHtml(view.title === config.name ? config.name : `${view.title} · ${config.name}`)}</title>`,
    view.description === undefined ? '' : `<meta name="description"${attributes({ content: view.description })}>`,
    view.meta ?? '',
    faviconLinks(map),
    `<link rel="stylesheet"${attributes({ href: view.assets.css })}>`,
    `<style>${theme}</style>`,
    `<script>${MODE_SCRIPT}</script>`,
    `<script defer${attributes({ src: view.assets.js })}></script>`,
    '</head><body>',
    '<a class="skip-link" href="#content">Skip to content</a>',
    topbar(view, section),
    '<div class="layout">',
    sidebar(view, section),
    `<main id="content" tabindex="-1"><article class="page">`,
    `<header class="page-header">` +
      `${view.path === undefined ? '' : `<p class="eyebrow">${escapeHtml(groupOf(map, section, view.path) ?? section.name)}</p>`}<h1>` +
      `${escapeHtml(view.title)}</h1>${view.description === undefined ? '' : `<p class="page-description">${escapeHtml(view.description)}</p>`}</header>`,
    `<div class="prose">${view.content}</div>`,
    feedback(config, view.path),
    '</article></main>',
    tableOfContents(view.headings),
    '</div>',
    footer(view),
    '</body></html>',
  ].join('')
  const csp = [
    "default-src 'none'",
    `script-src 'self' '${MODE_SCRIPT_HASH}'`,
    `style-src 'self' '${sha256(theme)}'`,
    "img-src 'self' https: http: data:",
    "media-src 'self' https:",
    `frame-src ${FRAME_HOSTS.join(' ')}`,
    `connect-src 'self'${connectSources([...apiBaseUrls(config), ...(view.connect ?? [])])}`,
    "font-src 'self'",
    "base-uri 'none'",
    "form-action 'none'",
    "frame-ancestors 'none'",
  ].join('; ')
  return { html, csp }
}

function topbar(view: PageView, section: Section): string {
  const { config, map } = view
  const logo = map.navigation.logo
  const href = linkUrl(logo?.href ?? '/', view.isPage) ?? SITE_BASE
  const light = imageUrl(logo?.light)
  const dark = imageUrl(logo?.dark)
  const brand =
    light === undefined
      ? `<span class="site-name">${escapeHtml(config.name)}</span>`
      : `<img class="logo logo-light"${attributes({ src: light, alt: config.name })}>` +
        `<img class="logo logo-dark"${attributes({ src: dark ?? light, alt: config.name })}>`
  const { navbar } = map.navigation
  const links = navbar.links.flatMap((link) => {
    const url = linkUrl(link.href, view.isPage)
    const icon = link.icon === undefined ? '' : iconSvg(link.icon, undefined)
    return url === undefined ? [] : [`<li><a${attributes({ href: url })}>${icon}${escapeHtml(link.label)}</a></li>`]
  })
  const cta = navbar.primary
  const ctaUrl = linkUrl(cta?.href, view.isPage)
  if (cta !== undefined && ctaUrl !== undefined) {
    links.push(
      cta.kind === 'github'
        ? `<li><a ` +
            `class="cta-github"${attributes({ href: ctaUrl, title: 'GitHub repository (the star count is not shown: this site is served offline)' })}>` +
            `${iconSvg('github', 'brands')}<span>${escapeHtml(cta.label ?? repositoryName(ctaUrl))}</span></a></li>`
        : `<li><a class="button-cta"${attributes({ href: ctaUrl })}>${escapeHtml(cta.label ?? (cta.kind === 'discord' ? 'Discord' : ctaUrl))}</a></li>`,
    )
  }
  const versions = map.navigation.versions
  const versionPicker =
    versions.length === 0
      ? ''
      : `<label class="version-picker"><span class="visually-hidden">Version</span><select id="version-select" ` +
        `data-default-version="${escapeHtml(versions[0]!)}">` +
        `${versions.map((version) => `<option>${escapeHtml(version)}</option>`).join('')}</select></label>`
  const toggle =
    modeToggleOf(config)?.isHidden === true
      ? ''
      : '<button type="button" id="mode-toggle" class="mode-toggle" aria-label="Dark mode" aria-pressed="false">' +
        `${iconSvg('moon', 'solid')}${iconSvg('sun', 'solid')}</button>`
  const tabs = map.tabRow.length === 0 ? '' : tabRow(view, section)
  // Shown on narrow screens only, and only with script (the page script opens and closes the navigation).
  const menu =
    '<button type="button" id="nav-toggle" class="nav-toggle" aria-controls="site-nav" aria-expanded="false" ' +
    `aria-label="Open navigation">${iconSvg('bars', 'solid')}</button>`
  return (
    `<header class="topbar"><div class="topbar-row">${menu}<a class="brand"${attributes({ href })}>${brand}</a><nav ` +
    `class="topbar-links" aria-label="Site ` +
    `links"><ul>${links.join('')}</ul></nav>${SEARCH_BUTTON}${versionPicker}${toggle}</div>${tabs}</header>`
  )
}

/** Opens the search dialog (assets/search.js); hidden until that script runs, as it does nothing without it. */
const SEARCH_BUTTON =
  '<button type="button" class="search-open" data-search-open hidden aria-haspopup="dialog" ' +
  `aria-keyshortcuts="Meta+K Control+K /">${iconSvg('magnifying-glass', 'solid')}<span>Search</span><kbd>Ctrl K</kbd></button>`

function tabRow(view: PageView, current: Section): string {
  const { map } = view
  const items = map.tabRow.flatMap((tab) => {
    const inside = within(current, tab)
    // A tab of another language waits until a reader is inside it, as an anchor does.
    if (tab.isDefaultHidden === true && !inside) return []
    const href =
      tab.external !== undefined ? safeUrl(tab.external) : tab === map.top ? SITE_BASE : pageUrlOf(map.landing(tab))
    if (href === undefined) return []
    return [
      `<li><a${attributes({ href, 'aria-current': inside ? 'page' : undefined })}>${escapeHtml(tab.name)}</a></li>`,
    ]
  })
  return `<nav class="tabs" aria-label="Tabs"><ul>${items.join('')}</ul></nav>`
}

function sidebar(view: PageView, section: Section): string {
  const { map } = view
  const anchors = map.anchorList.map((anchor) => anchorItem(view, anchor, section))
  const tree = map.sidebar(section)
  return `<nav class="sidebar" id="site-nav" aria-label="Documentation"><ul class="anchors">${anchors.join('')}</ul>${navList(view, tree, 0)}</nav>`
}

function anchorItem(view: PageView, anchor: Section, current: Section): string {
  const href =
    anchor.external !== undefined
      ? safeUrl(anchor.external)
      : anchor === view.map.top
        ? SITE_BASE
        : pageUrlOf(view.map.landing(anchor))
  if (href === undefined) return ''
  const inside = within(current, anchor)
  // isDefaultHidden: shown once a reader is inside it; version: shown when that version is picked (the script
  // re-checks against the reader's saved choice; without script the first version counts as picked).
  const versions = view.map.navigation.versions
  const versionHidden = anchor.version !== undefined && anchor.version !== versions[0]
  const hidden = (anchor.isDefaultHidden === true && !inside) || versionHidden
  const icon = iconSvg(anchor.icon, anchor.iconType)
  const badge = `<span class="anchor-icon"${attributes({ 'data-anchor': anchorKey(view, anchor) })}>${icon}</span>`
  const state = {
    'data-version': anchor.version,
    'data-default-hidden': anchor.isDefaultHidden === true && !inside ? 'true' : undefined,
    hidden,
  }
  return (
    `<li${attributes(state)}>` +
    `<a${attributes({ href, 'aria-current': inside ? 'true' : undefined, class: 'anchor' })}>${badge}<span>` +
    `${escapeHtml(anchor.name)}</span></a></li>`
  )
}

/** The CSS hook of an anchor's icon colour; the colours themselves go in the page's stylesheet (see anchorStyles). */
function anchorKey(view: PageView, anchor: Section): string {
  return anchor === view.map.top ? 'top' : String(view.map.anchors.indexOf(anchor))
}

/** Per-anchor icon colours as CSS rules (docs.json colours passed the hex pattern, so they are safe in CSS). */
function anchorStyles(map: SiteMap): string {
  return map.anchors
    .map(
      (anchor, index) =>
        `[data-anchor="${index}"]{background:${anchorBackground(anchor.color)};color:${anchorForeground(anchor.color)}}`,
    )
    .join('')
}

function navList(view: PageView, entries: NavEntry[], depth: number): string {
  const items = entries.map((entry) => {
    if (entry.kind === 'page') {
      // Snippets are never pages (as in Mintlify): navigation that names one shows nothing for it.
      if (entry.path.startsWith(SNIPPET_FOLDER)) return ''
      const current = entry.path === view.path
      // /docs/pages/…, /docs/_assets/… and /docs/_files/… are the pages API and the site's files: a link there
      // would not show the page, so it is named without a link, saying why.
      if (RESERVED_PREFIX.test(entry.path)) {
        return (
          `<li><span class="nav-unreachable" title="/docs/${escapeHtml(entry.path.split('/')[0]!)}/ is not a page ` +
          `address; store and name this page under another ` +
          `folder">${escapeHtml(view.labelOf(entry.path))}</span></li>`
        )
      }
      return `<li><a${attributes({ href: pageUrl(entry.path), 'aria-current': current ? 'page' : undefined })}>${escapeHtml(view.labelOf(entry.path))}</a></li>`
    }
    // A group with a root page links its name there (current shape: `root`).
    const name =
      entry.root === undefined || RESERVED_PREFIX.test(entry.root)
        ? escapeHtml(entry.name)
        : `<a${attributes({ href: pageUrl(entry.root), 'aria-current': entry.root === view.path ? 'page' : undefined })}>${escapeHtml(entry.name)}</a>`
    const heading = depth === 0 ? `<h2 class="nav-group">${name}</h2>` : `<span class="nav-subgroup">${name}</span>`
    return `<li class="group">${heading}${navList(view, entry.entries, depth + 1)}</li>`
  })
  return `<ul class="nav-level-${depth}">${items.join('')}</ul>`
}

function groupOf(map: SiteMap, section: Section, path: string): string | undefined {
  const search = (entries: NavEntry[], group: string | undefined): string | undefined => {
    for (const entry of entries) {
      if (entry.kind === 'page' && entry.path === path) return group
      if (entry.kind === 'group') {
        const found = search(entry.entries, entry.name)
        if (found !== undefined) return found
      }
    }
    return undefined
  }
  return search(map.sidebar(section), undefined)
}

function tableOfContents(headings: PageView['headings']): string {
  const shown = headings.filter((heading) => heading.level <= 3)
  if (shown.length === 0) return ''
  const items = shown.map(
    (heading) =>
      `<li class="toc-${heading.level}"><a href="#${encodeURIComponent(heading.id)}">${escapeHtml(heading.text)}</a></li>`,
  )
  return `<aside class="toc" aria-label="On this page"><p class="toc-title">On this page</p><ul>${items.join('')}</ul></aside>`
}

function feedback(config: DocsConfig, path: string | undefined): string {
  const wanted = config.feedback
  if (path === undefined || (wanted?.suggestEdit !== true && wanted?.raiseIssue !== true)) return ''
  const repository = repositoryOf(config.topbarCtaButton, config.footerSocials)
  const button = (label: string, href: string | undefined) =>
    href === undefined
      ? `<span class="feedback-button" aria-disabled="true" title="docs.json names no GitHub repository ` +
        `(topbarCtaButton of type github, or footerSocials.github)">${escapeHtml(label)}</span>`
      : `<a class="feedback-button"${attributes({ href, rel: 'noopener noreferrer' })}>${escapeHtml(label)}</a>`
  const buttons: string[] = []
  if (wanted.suggestEdit === true)
    buttons.push(button('Suggest edits', repository && `${repository}/edit/main/${path}.mdx`))
  if (wanted.raiseIssue === true) {
    buttons.push(
      button(
        'Raise issue',
        repository &&
          `${repository}/issues/new?title=${encodeURIComponent(`Issue on docs: /${path}`)}&body=${encodeURIComponent(`Path: /${path}`)}`,
      ),
    )
  }
  return `<aside class="feedback" aria-label="Feedback">${buttons.join('')}</aside>`
}

function footer(view: PageView): string {
  const { config, map } = view
  const socials = map.navigation.footer.socials.flatMap(([platform, url]) => {
    const href = typeof url === 'string' && /^https?:/i.test(url.trim()) ? url.trim() : undefined
    if (href === undefined) return []
    return [
      `<li><a${attributes({ href, 'aria-label': platform, rel: 'noopener noreferrer' })}>${socialIcon(platform) || escapeHtml(platform)}</a></li>`,
    ]
  })
  const columns = map.navigation.footer.columns.map((column) => {
    const items = column.items.flatMap((link) => {
      const href = linkUrl(link.href, view.isPage)
      return href === undefined ? [] : [`<li><a${attributes({ href })}>${escapeHtml(link.label)}</a></li>`]
    })
    const header = column.header === undefined ? '' : `<p class="footer-header">${escapeHtml(column.header)}</p>`
    return `<div class="footer-column">${header}<ul>${items.join('')}</ul></div>`
  })
  return (
    `<footer class="site-footer">` +
    `${columns.length === 0 ? '' : `<nav class="footer-links" aria-label="Footer">${columns.join('')}</nav>`}` +
    `${socials.length === 0 ? '' : `<ul class="socials" aria-label="Social links">${socials.join('')}</ul>`}<p>` +
    `${escapeHtml(config.name)} · served by Trellis</p></footer>`
  )
}

function pageUrlOf(path: string | undefined): string | undefined {
  return path === undefined ? undefined : pageUrl(path)
}

const CSP_ORIGIN = /^https?:\/\/(?:[A-Za-z0-9.-]+|\[[0-9A-Fa-f:.]+\])(?::\d{1,5})?$/

function connectSources(urls: string[]): string {
  const origins = new Set<string>()
  for (const url of urls) {
    try {
      const parsed = new URL(url)
      // A host may hold ";" or "," (`https://a;sandbox`), which would end the directive or the policy: only plain
      // hosts.
      if (CSP_ORIGIN.test(parsed.origin)) origins.add(parsed.origin)
    } catch {
      // docs.json validation already requires absolute URLs; an unparsable one simply adds nothing.
    }
  }
  return [...origins].map((origin) => ` ${origin}`).join('')
}

function sha256(text: string): string {
  return `sha256-${createHash('sha256').update(text).digest('base64')}`
}

/** Whether `section` is `outer` or sits inside it (a dropdown inside a tab). */
function within(section: Section, outer: Section): boolean {
  for (let at: Section | undefined = section; at !== undefined; at = at.parent) if (at === outer) return true
  return false
}

/** The favicon, and its dark-mode variant when docs.json gives `favicon: {light, dark}`. */
function faviconLinks(map: SiteMap): string {
  const favicon = map.navigation.favicon
  const light = imageUrl(favicon?.light)
  if (light === undefined) return ''
  const dark = imageUrl(favicon?.dark)
  if (dark === undefined) return `<link rel="icon"${attributes({ href: light })}>`
  return (
    `<link rel="icon"${attributes({ href: light, media: '(prefers-color-scheme: light)' })}>` +
    `<link rel="icon"${attributes({ href: dark, media: '(prefers-color-scheme: dark)' })}>`
  )
}

/**
 * The mode toggle as the spec shape writes it; the current shape's `appearance` ({default: system|light|dark,
 * strict}) says the same.
 */
function modeToggleOf(config: DocsConfig): DocsConfig['modeToggle'] {
  if (config.modeToggle !== undefined) return config.modeToggle
  const appearance = (config as { appearance?: { default?: string; strict?: boolean } }).appearance
  if (appearance === undefined) return undefined
  const mode = appearance.default === 'light' || appearance.default === 'dark' ? appearance.default : undefined
  return { default: mode, isHidden: appearance.strict === true }
}
