import { t } from 'elysia'

/**
 * Building blocks the current docs.json shape uses in many places: icons, colours, hrefs, OpenAPI sources.
 * Names, enums and required keys follow Mintlify's published schema (`@mintlify/validation`, docs.json).
 */

/** Matches `#RGB` and `#RRGGBB`. */
const HEX_COLOUR_PATTERN = '^#([0-9a-fA-F]{3}|[0-9a-fA-F]{6})$'

export const hexColour = (description: string) =>
  t.String({
    description,
    title: 'a hex colour such as "#16A34A"',
    pattern: HEX_COLOUR_PATTERN,
    patternErrorMessage: 'not a hex colour; use #RGB or #RRGGBB such as "#16A34A"',
  })

/** A union of string literals, as an enum the validator and editors list. */
export const oneOf = <const T extends readonly string[]>(values: T, description: string) =>
  t.Union(
    values.map((value) => t.Literal(value)),
    { description },
  )

export const ICON_STYLES = [
  'brands',
  'duotone',
  'light',
  'regular',
  'sharp-duotone-solid',
  'sharp-light',
  'sharp-regular',
  'sharp-solid',
  'sharp-thin',
  'solid',
  'thin',
] as const

const ICON_LIBRARIES = ['fontawesome', 'lucide', 'tabler'] as const

export const Icon = t.Union(
  [
    t.String({ title: 'an icon name', description: 'name of a Font Awesome, Lucide or Tabler icon, or a path or URL' }),
    t.Object(
      {
        name: t.String({ description: 'icon name' }),
        style: t.Optional(oneOf(ICON_STYLES, 'Font Awesome style')),
        library: t.Optional(oneOf(ICON_LIBRARIES, 'icon library')),
      },
      { title: 'an icon object {name, style, library}' },
    ),
  ],
  { description: 'an icon name, or {name, style, library}' },
)

/** A colour per mode; either may be left out. */
export const ModeColours = t.Object(
  {
    light: t.Optional(hexColour('colour in light mode')),
    dark: t.Optional(hexColour('colour in dark mode')),
  },
  { description: 'hex colours for light and dark mode' },
)

/** A light and a dark variant of a file, both required. */
export const LightDark = (what: string) =>
  t.Object(
    {
      light: t.String({ description: `${what} in light mode` }),
      dark: t.String({ description: `${what} in dark mode` }),
    },
    { title: `a {light, dark} object`, description: `${what} per mode` },
  )

export const Href = (description: string) => t.String({ description })

const OpenApiSourceObject = t.Object(
  {
    source: t.String({ minLength: 1, description: 'URL or relative path of the OpenAPI file' }),
    directory: t.Optional(t.String({ description: 'folder the generated pages go to' })),
    overlays: t.Optional(
      t.Array(t.String({ minLength: 1 }), { description: 'OpenAPI overlay files applied in order' }),
    ),
  },
  { title: 'an OpenAPI source object {source, directory}' },
)

/**
 * `openapi`: a URL or path, a list of them, or `{source, directory}`. Mintlify's schema accepts objects in the
 * list too; ours keeps one object branch per union (the unknown-key walk needs it), so list items are strings
 * or objects through one item union.
 */
export const OpenApiSource = t.Union(
  [
    t.String({ minLength: 1, title: 'a URL or path string', description: 'URL or relative path of an OpenAPI file' }),
    t.Array(t.Union([t.String({ minLength: 1 }), OpenApiSourceObject]), {
      title: 'an array of sources',
      description: 'several OpenAPI files',
    }),
    OpenApiSourceObject,
  ],
  { description: 'OpenAPI file(s): URL, relative path, list of them, or {source, directory}' },
)

export const AsyncApiSource = t.Union(
  [
    t.String({ minLength: 1, title: 'a URL or path string' }),
    t.Array(t.String({ minLength: 1 }), { title: 'an array of URL or path strings' }),
    t.Object(
      { source: t.String({ minLength: 1 }), directory: t.Optional(t.String()) },
      { title: 'an AsyncAPI source object {source, directory}' },
    ),
  ],
  { description: 'AsyncAPI file(s)' },
)

export const DIRECTORY_STYLES = ['none', 'accordion', 'card'] as const

export const LOCALES = [
  'en',
  'cn',
  'zh',
  'zh-Hans',
  'zh-Hant',
  'zh-CN',
  'zh-TW',
  'es',
  'fr',
  'fr-CA',
  'fr-ca',
  'ja',
  'jp',
  'ja-jp',
  'ja-JP',
  'pt',
  'pt-BR',
  'de',
  'ko',
  'it',
  'ru',
  'ro',
  'cs',
  'id',
  'ar',
  'tr',
  'hi',
  'sv',
  'no',
  'da',
  'lv',
  'nl',
  'uk',
  'vi',
  'pl',
  'uz',
  'he',
  'ca',
  'fi',
  'hu',
] as const

export const FOOTER_SOCIAL_KEYS = [
  'x',
  'website',
  'facebook',
  'youtube',
  'discord',
  'slack',
  'github',
  'linkedin',
  'instagram',
  'hacker-news',
  'medium',
  'telegram',
  'twitter',
  'x-twitter',
  'earth-americas',
  'bluesky',
  'threads',
  'reddit',
  'podcast',
] as const

/** `footer.socials` (and the spec shape's `footerSocials`): platform key → account URL, keys a closed set. */
export const footerSocials = (keys: readonly string[], description: string) =>
  t.Object(
    Object.fromEntries(keys.map((key) => [key, t.Optional(t.String({ description: `account URL on ${key}` }))])),
    { additionalProperties: false, description: `${description}; keys: ${keys.join(', ')}` },
  )
