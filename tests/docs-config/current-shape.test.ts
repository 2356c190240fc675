import { describe, expect, setDefaultTimeout, test } from 'bun:test'
import { validateDocsConfig as mintlify } from '@mintlify/validation'
import { validateDocsConfig } from '../../src/docs-config/validation/validate'
import { unmark } from './marked-text'

// bun applies the preload's default timeout to the first file only (tests/setup.ts).
setDefaultTimeout(30_000)

/**
 * The current docs.json shape (issue #27 §1), rule by rule: each row breaks one rule at the place marked `¦`,
 * which the error must name by line and column; the same document with `respected` in its place is valid.
 * Mintlify's own validator (`@mintlify/validation`) must agree on both.
 */

/** A small valid current-shape docs.json whose fifth line is `extra`, a property or several. */
function current(extra: string, navigation = '{ "groups": [{ "group": "Start", "pages": ["index"] }] }'): string {
  return `{\n  "theme": "mint",\n  "name": "Acme",\n  "colors": { "primary": "#16A34A" },\n  ${extra}\n  "navigation": ${navigation}\n}\n`
}

type Row = {
  rule: string
  path: string
  message: string
  suggestion?: string
  /**
   * Why Mintlify accepts the broken document: stricter here on purpose. Its unions fall back to a branch
   * without children and silently drop the broken part (a version's groups vanish from the site).
   */
  mintlifyDrops?: string
} & ({ property: string; respected: string } | { navigation: string; respectedNavigation: string })

const ROWS: Row[] = [
  {
    rule: 'theme is one of the themes',
    property: '"$schema": "https://mintlify.com/docs.json", "description": "x",',
    respected: '"$schema": "https://mintlify.com/docs.json", "description": "x",',
    path: '/theme',
    message: 'theme: "mnt" is not allowed; use one of mint, maple, palm, willow, linden, almond, aspen, luma, sequoia',
    suggestion: 'mint',
  },
  {
    rule: 'favicon is a path or {light, dark}',
    property: '"favicon": ¦{ "light": "/f.svg" },',
    respected: '"favicon": { "light": "/f.svg", "dark": "/d.svg" },',
    path: '/favicon/dark',
    message: 'favicon.dark is required',
  },
  {
    rule: 'appearance.default is system, light or dark',
    property: '"appearance": { "default": ¦"auto" },',
    respected: '"appearance": { "default": "system" },',
    path: '/appearance/default',
    message: 'appearance.default: "auto" is not allowed; use one of system, light, dark',
  },
  {
    rule: 'navbar.primary.type is button, github or discord',
    property: '"navbar": { "primary": { "type": ¦"link", "label": "Go", "href": "https://x.dev" } },',
    respected: '"navbar": { "primary": { "type": "button", "label": "Go", "href": "https://x.dev" } },',
    path: '/navbar/primary/type',
    message: 'navbar.primary.type: "link" is not allowed; use one of button, github, discord',
  },
  {
    rule: 'a primary button of type button needs a label',
    property: '"navbar": { "primary": ¦{ "type": "button", "href": "https://x.dev" } },',
    respected: '"navbar": { "primary": { "type": "github", "href": "https://github.com/acme" } },',
    path: '/navbar/primary/label',
    message: 'navbar.primary.label is required',
  },
  {
    rule: 'footer.socials keys are a closed set; twitter is one',
    property: '"footer": { "socials": { "twitter": "https://twitter.com/a", ¦"myspace": "https://myspace.com/a" } },',
    respected: '"footer": { "socials": { "twitter": "https://twitter.com/a", "bluesky": "https://bsky.app/a" } },',
    path: '/footer/socials/myspace',
    message: 'is not an allowed key of footer.socials',
  },
  {
    rule: 'footer.links holds one to four columns',
    property: '"footer": { "links": ¦[] },',
    respected: '"footer": { "links": [{ "items": [{ "label": "Blog", "href": "https://x.dev/blog" }] }] },',
    path: '/footer/links',
    message: 'footer.links',
  },
  {
    rule: 'redirects need a source and a destination',
    property: '"redirects": [¦{ "source": "/old" }],',
    respected: '"redirects": [{ "source": "/old", "destination": "/new", "permanent": false }],',
    path: '/redirects/0/destination',
    message: 'redirects[0].destination is required',
  },
  {
    rule: 'contextual.options is required',
    property: '"contextual": ¦{ "display": "header" },',
    respected: '"contextual": { "options": ["copy", "chatgpt"], "display": "header" },',
    path: '/contextual/options',
    message: 'contextual.options is required',
  },
  {
    rule: 'an icon name has no fa- prefix',
    navigation: '{ "tabs": [{ "tab": "Guides", "icon": ¦"fa-book", "pages": ["index"] }] }',
    respectedNavigation: '{ "tabs": [{ "tab": "Guides", "icon": "book", "pages": ["index"] }] }',
    path: '/navigation/tabs/0/icon',
    message: 'starts with "fa-"',
    suggestion: 'book',
  },
  {
    rule: 'navigation needs a division, groups or pages',
    navigation: '¦{ "global": {} }',
    respectedNavigation: '{ "pages": ["index"] }',
    path: '/navigation',
    message: 'navigation: needs one of products, languages, versions, tabs, dropdowns, anchors, menu, groups, pages',
  },
  {
    rule: 'each tab needs tab',
    navigation: '{ "tabs": [¦{ "pages": ["index"] }] }',
    respectedNavigation: '{ "tabs": [{ "tab": "Guides", "pages": ["index"] }] }',
    path: '/navigation/tabs/0/tab',
    message: 'navigation.tabs[0].tab is required',
  },
  {
    rule: 'a group inside a version needs group',
    navigation: '{ "versions": [{ "version": "v1", "groups": [¦{ "pages": ["index"] }] }] }',
    respectedNavigation: '{ "versions": [{ "version": "v1", "groups": [{ "group": "A", "pages": ["index"] }] }] }',
    path: '/navigation/versions/0/groups/0/group',
    message: 'is required',
    mintlifyDrops: "the version's groups",
  },
  {
    rule: 'a language is a language code',
    navigation: '{ "languages": [{ "language": ¦"english", "pages": ["index"] }] }',
    respectedNavigation: '{ "languages": [{ "language": "en", "pages": ["index"] }] }',
    path: '/navigation/languages/0/language',
    message: 'navigation.languages[0].language: "english" is not allowed',
  },
  {
    rule: 'a nested group in pages needs group',
    navigation: '{ "pages": ["index", ¦{ "pages": ["a"] }] }',
    respectedNavigation: '{ "pages": ["index", { "group": "More", "root": "a", "expanded": true, "pages": ["b"] }] }',
    path: '/navigation/pages/1/group',
    message: 'is required',
  },
]

/** The rows as texts: the theme row swaps its value in, as the theme line is part of the frame. */
function texts(row: Row): { broken: string; respected: string } {
  if ('navigation' in row)
    return { broken: current('', row.navigation), respected: current('', row.respectedNavigation) }
  if (row.path === '/theme') {
    return {
      broken: current(row.property).replace('"theme": "mint"', '"theme": ¦"mnt"'),
      respected: current(row.respected),
    }
  }
  return { broken: current(row.property), respected: current(row.respected) }
}

describe('each rule of the current shape, broken: an error at its line and column; Mintlify refuses it too', () => {
  test.each(ROWS.map((row) => [row.rule, row] as const))('%s', (_rule, row) => {
    const { text, line, column } = unmark(texts(row).broken)
    const result = validateDocsConfig(text)
    expect(result.valid).toBe(false)
    const issue = result.errors.find((candidate) => candidate.path === row.path)
    expect(issue, JSON.stringify(result.errors)).toBeDefined()
    expect({ line: issue?.line, column: issue?.column }).toEqual({ line, column })
    expect(issue?.message).toContain(row.message)
    if (row.suggestion !== undefined) expect(issue?.suggestion).toBe(row.suggestion)
    expect(mintlify(JSON.parse(text)).success).toBe(row.mintlifyDrops !== undefined)
  })
})

describe('each rule of the current shape, respected: valid here and for Mintlify', () => {
  test.each(ROWS.map((row) => [row.rule, row] as const))('%s', (_rule, row) => {
    const text = texts(row).respected
    expect(validateDocsConfig(text).errors).toEqual([])
    expect(mintlify(JSON.parse(text)).success).toBe(true)
  })
})

describe('unknown keys of the current shape: warnings with a suggestion, errors in strict mode', () => {
  const ROWS_UNKNOWN: [where: string, text: string, path: string, suggestion?: string][] = [
    ['top level', current('¦"navbr": {},'), '/navbr', 'navbar'],
    [
      'in a tab',
      current('', '{ "tabs": [{ "tab": "A", ¦"pagse": ["index"], "pages": ["index"] }] }'),
      '/navigation/tabs/0/pagse',
      'pages',
    ],
    [
      'in a nested group',
      current('', '{ "pages": [{ "group": "G", "pages": ["a"], ¦"exapnded": true }] }'),
      '/navigation/pages/0/exapnded',
      'expanded',
    ],
  ]
  test.each(ROWS_UNKNOWN)('%s', (_where, marked, path, suggestion) => {
    const { text, line, column } = unmark(marked)
    const relaxed = validateDocsConfig(text)
    expect(relaxed.valid).toBe(true)
    expect(relaxed.warnings).toEqual([expect.objectContaining({ path, line, column, suggestion })])
    const strict = validateDocsConfig(text, { strict: true })
    expect(strict.valid).toBe(false)
    expect(strict.errors).toEqual([expect.objectContaining({ path, line, column })])
  })
})

describe('which shape a file is', () => {
  test('an array navigation is the spec shape even with a theme key (the mint.json of old had "venus")', () => {
    const text = '{ "name": "A", "theme": "venus", "navigation": [{ "group": "G", "pages": ["a"] }] }'
    expect(validateDocsConfig(text)).toMatchObject({ valid: true, errors: [], warnings: [] })
  })

  test('a theme without navigation is the current shape, and says what it lacks', () => {
    const result = validateDocsConfig('{ "theme": "mint", "name": "A", "colors": { "primary": "#000" } }')
    expect(result.errors.map((issue) => issue.path)).toEqual(['/navigation'])
  })

  test('the valid config is returned as written, with the current shape kept', () => {
    const result = validateDocsConfig(current('"navbar": { "links": [{ "label": "Blog", "href": "/blog" }] },'))
    expect(result.valid).toBe(true)
    expect(result.config).toMatchObject({ theme: 'mint', navbar: { links: [{ label: 'Blog', href: '/blog' }] } })
  })
})
