import { escapeHtml } from './html'

/**
 * Font Awesome Free icons by the names docs.json uses (`"icon": "book-open"`, `"iconType": "brands"`),
 * as inline SVG. Free has three packs: solid, regular and brands. The Pro styles a docs.json may ask
 * for (duotone, light, thin, sharp-*) are drawn with the solid icon of the same name.
 */

type SolidModule = typeof import('@fortawesome/free-solid-svg-icons')
type IconDefinition = SolidModule['faBook']
type PackName = 'solid' | 'regular' | 'brands'

/** Options for {@link iconSvg}: a label makes the icon an image for screen readers; otherwise it is decoration. */
export interface IconOptions {
  label?: string
  className?: string
}

const STYLE_PACK: Record<string, PackName> = {
  solid: 'solid',
  duotone: 'solid',
  light: 'solid',
  thin: 'solid',
  'sharp-solid': 'solid',
  'sharp-light': 'solid',
  'sharp-thin': 'solid',
  'sharp-duotone-solid': 'solid',
  regular: 'regular',
  'sharp-regular': 'regular',
  brands: 'brands',
}

/** Where a name is looked for after the pack its iconType names: a missing style falls back rather than vanishing. */
const FALLBACK_ORDER: PackName[] = ['solid', 'brands', 'regular']

/** footerSocials keys whose icon is not the brand of the same name. */
const SOCIAL_ICONS: Record<string, [name: string, pack: PackName]> = {
  website: ['globe', 'solid'],
  x: ['x-twitter', 'brands'],
  'earth-americas': ['earth-americas', 'solid'],
  podcast: ['podcast', 'solid'],
}

const libraries = new Map<PackName, Map<string, IconDefinition>>()

/**
 * The packs are loaded with `require` on first use, not imported: evaluating their 1.7 MB of JavaScript
 * takes about 40 ms, which belongs to the first page that shows an icon rather than to every server start.
 * The string literals keep them visible to `bun build --compile`, which embeds them like any import.
 */
function loadPack(pack: PackName): Record<string, IconDefinition> {
  switch (pack) {
    case 'solid':
      return (require('@fortawesome/free-solid-svg-icons') as SolidModule).fas
    case 'regular':
      return (require('@fortawesome/free-regular-svg-icons') as typeof import('@fortawesome/free-regular-svg-icons'))
        .far
    case 'brands':
      return (require('@fortawesome/free-brands-svg-icons') as typeof import('@fortawesome/free-brands-svg-icons')).fab
  }
}

/**
 * Name → definition for one pack: each icon under its name and the aliases in `icon[2]` ("twitter-square",
 * "x-twitter"…).
 */
function library(pack: PackName): Map<string, IconDefinition> {
  let names = libraries.get(pack)
  if (names !== undefined) return names
  names = new Map()
  for (const definition of Object.values(loadPack(pack))) {
    names.set(definition.iconName, definition)
    for (const alias of definition.icon[2]) {
      // The ligature list mixes alias names with Unicode code points (numbers); only the names are looked up.
      if (typeof alias === 'string' && !names.has(alias)) names.set(alias, definition)
    }
  }
  libraries.set(pack, names)
  return names
}

function lookup(name: string, packs: readonly PackName[]): IconDefinition | undefined {
  for (const pack of packs) {
    const names = library(pack)
    const found = names.get(name) ?? (name.startsWith('fa-') ? names.get(name.slice(3)) : undefined)
    if (found !== undefined) return found
  }
  return undefined
}

function packsFor(iconType: string | undefined): readonly PackName[] {
  const key = iconType?.trim().toLowerCase()
  // Own keys only: an MDX author's iconType="constructor" must not find Object's and fail the page.
  const preferred = key === undefined || !Object.hasOwn(STYLE_PACK, key) ? undefined : STYLE_PACK[key]
  if (preferred === undefined) return FALLBACK_ORDER
  return [preferred, ...FALLBACK_ORDER.filter((pack) => pack !== preferred)]
}

function svg(definition: IconDefinition, options: IconOptions): string {
  const [width, height, , , pathData] = definition.icon
  // Path data comes from the Font Awesome packages, never from a docs author, so it needs no escaping.
  const paths = (Array.isArray(pathData) ? pathData : [pathData]).map((d) => `<path d="${d}"/>`).join('')
  const className = options.className === undefined ? '' : ` class="${escapeHtml(options.className)}"`
  const accessibility =
    options.label === undefined ? ' aria-hidden="true"' : ` role="img" aria-label="${escapeHtml(options.label)}"`
  return `<svg xmlns="http://www.w3.org/2000/svg" viewBox="0 0 ${width} ${height}" fill="currentColor"${className}${accessibility}>${paths}</svg>`
}

/**
 * Inline `<svg>` markup for a Font Awesome Free icon, or `''` when the name is unknown (or undefined);
 * it never throws. `iconType` is docs.json's style name; a name may carry the `fa-` prefix.
 *
 * @example iconSvg('book-open') // '<svg … viewBox="0 0 576 512" fill="currentColor" aria-hidden="true"><path d="…"/></svg>'
 * @example iconSvg('github', 'brands', { label: 'GitHub' }) // '<svg … role="img" aria-label="GitHub">…'
 */
export function iconSvg(name: string | undefined, iconType?: string, options: IconOptions = {}): string {
  if (typeof name !== 'string') return ''
  const key = name.trim().toLowerCase()
  if (key === '') return ''
  const definition = lookup(key, packsFor(iconType))
  return definition === undefined ? '' : svg(definition, options)
}

/**
 * The icon of a docs.json `footerSocials` key (`github`, `x`, `website`, `hacker-news`…): the brand of
 * that name, with the few keys that name something else mapped (website → globe, x → x-twitter). `''` if none.
 */
export function socialIcon(platform: string, options: IconOptions = {}): string {
  const key = platform.trim().toLowerCase()
  const [name, pack] = Object.hasOwn(SOCIAL_ICONS, key) ? SOCIAL_ICONS[key]! : [key, 'brands' as const]
  return iconSvg(name, pack, options)
}
