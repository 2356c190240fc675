import { describe, expect, setDefaultTimeout, test } from 'bun:test'
import DEFAULT_DOCS from '../../src/docs-config/default-docs.json'
import { validateDocsConfig } from '../../src/docs-config/validation/validate'
import { unmark, withProperty } from './marked-text'

// bun applies the preload's default timeout to the first file only (tests/setup.ts).
setDefaultTimeout(30_000)

/** A config using every property of the spec's tables, with the spec's own example values. */
const SPEC_EXAMPLE = {
  $schema: 'https://trellis.example.com/docs.json/schema',
  name: 'Acme',
  navigation: [
    { group: 'Get Started', pages: ['introduction', 'quickstart'] },
    { group: 'Essentials', pages: ['essentials/markdown', { group: 'Components', pages: ['essentials/code'] }] },
  ],
  logo: { light: '/logo/light.svg', dark: '/logo/dark.svg', href: 'https://acme.example.com' },
  favicon: '/favicon.svg',
  colors: {
    primary: '#0D9373',
    light: '#07C983',
    dark: '#0D9373',
    background: { light: '#FFFFFF', dark: '#0F1117' },
  },
  topbarLinks: [{ name: 'Support', url: 'mailto:support@acme.example.com' }],
  topbarCtaButton: { type: 'link', name: 'Dashboard', url: 'https://dashboard.acme.example.com' },
  versions: ['v2', 'v1'],
  anchors: [
    {
      icon: 'book-open',
      name: 'Documentation',
      url: 'docs',
      color: '#16A34A',
      isDefaultHidden: false,
      iconType: 'duotone',
    },
    { icon: 'code', name: 'API', url: 'api-reference', color: { from: '#117866', to: '#2AB673' }, version: 'v2' },
  ],
  topAnchor: { name: 'Documentation', icon: 'book-open', iconType: 'duotone' },
  tabs: [{ name: 'API Reference', url: 'api-reference' }],
  api: {
    baseUrl: ['https://api.acme.example.com', 'https://sandbox.acme.example.com'],
    auth: { method: 'basic', name: '[usernameName]:[passwordName]', inputPrefix: 'Basic' },
    playground: { mode: 'simple' },
    maintainOrder: true,
  },
  openapi: ['openapi.json', 'https://api.acme.example.com/openapi.yaml'],
  footerSocials: {
    website: 'https://acme.example.com',
    facebook: 'https://facebook.com/acme',
    x: 'https://x.com/acme',
    discord: 'https://discord.gg/acme',
    slack: 'https://acme.slack.com',
    github: 'https://github.com/acme',
    linkedin: 'https://www.linkedin.com/company/acme',
    instagram: 'https://instagram.com/acme',
    'hacker-news': 'https://news.ycombinator.com/user?id=acme',
  },
  feedback: { suggestEdit: true, raiseIssue: true },
  modeToggle: { default: 'dark', isHidden: true },
  backgroundImage: '/images/background.png',
}

const valid = (config: unknown) => validateDocsConfig(JSON.stringify(config, null, 2))

describe('valid configs', () => {
  test('the spec example, with every property, validates and keeps every value', () => {
    const result = valid(SPEC_EXAMPLE)
    expect(result.errors).toEqual([])
    expect(result.warnings).toEqual([])
    expect(result.config).toMatchObject(SPEC_EXAMPLE)
  })

  const ENUM_VALUES: [string, string[], (value: string) => object][] = [
    [
      'iconType (anchors)',
      ['brands', 'duotone', 'light', 'sharp-solid', 'solid', 'thin'],
      (v) => ({ anchors: [{ name: 'A', url: 'a', iconType: v }] }),
    ],
    [
      'iconType (topAnchor)',
      ['brands', 'duotone', 'light', 'sharp-solid', 'solid', 'thin'],
      (v) => ({ topAnchor: { iconType: v } }),
    ],
    ['api.auth.method', ['bearer', 'basic', 'key'], (v) => ({ api: { auth: { method: v } } })],
    ['api.playground.mode', ['show', 'simple', 'hide'], (v) => ({ api: { playground: { mode: v } } })],
    ['modeToggle.default', ['light', 'dark'], (v) => ({ modeToggle: { default: v } })],
    [
      'topbarCtaButton.type',
      ['link', 'github'],
      (v) => ({ topbarCtaButton: { type: v, name: 'Go', url: 'https://github.com/acme/docs' } }),
    ],
  ]
  test.each(ENUM_VALUES)('every value the spec allows for %s validates', (_field, values, build) => {
    for (const value of values) {
      const result = valid({ name: 'Acme', navigation: [{ group: 'A', pages: ['a'] }], ...build(value) })
      expect(result.errors).toEqual([])
    }
  })

  test('#RGB and #RRGGBB, in either case, are hex colours', () => {
    for (const primary of ['#fff', '#FFF', '#16a34a', '#16A34A']) {
      expect(valid({ name: 'Acme', navigation: [{ group: 'A', pages: ['a'] }], colors: { primary } }).valid).toBe(true)
    }
  })

  test('the built-in default describes Trellis and validates', () => {
    const result = valid(DEFAULT_DOCS)
    expect(result.errors).toEqual([])
    expect(result.warnings).toEqual([])
    expect(result.config).toMatchObject({
      name: 'Trellis',
      api: { auth: { method: 'bearer' } },
      openapi: '/openapi.json',
    })
    expect(typeof result.config?.api?.baseUrl).toBe('string')
    const groups = DEFAULT_DOCS.navigation.map((group) => group.group)
    expect(groups).toContain('Plant Store')
    expect(groups).toContain('Chat')
  })

  test('a byte-order mark before the document is tolerated', () => {
    expect(
      validateDocsConfig(`\uFEFF${JSON.stringify({ name: 'Acme', navigation: [{ group: 'A', pages: ['a'] }] })}`).valid,
    ).toBe(true)
  })
})

describe('normalisation fills in the defaults', () => {
  test('a minimal config gets topAnchor, feedback and modeToggle', () => {
    const result = valid({ name: 'Acme', navigation: [{ group: 'A', pages: ['a'] }] })
    expect(result.config).toEqual({
      name: 'Acme',
      navigation: [{ group: 'A', pages: ['a'] }],
      topAnchor: { name: 'Documentation', icon: 'book-open', iconType: 'duotone' },
      feedback: { suggestEdit: false, raiseIssue: false },
      modeToggle: { isHidden: false },
    })
  })

  test('defaults inside present objects: logo.href, topbarCtaButton.type, anchors, api.playground, partial feedback/topAnchor', () => {
    const result = valid({
      name: 'Acme',
      navigation: [{ group: 'A', pages: ['a'] }],
      logo: { light: '/l.svg', dark: '/d.svg' },
      topbarCtaButton: { name: 'Go', url: 'https://app.example.com' },
      anchors: [{ name: 'API', url: 'api' }],
      topAnchor: { name: 'Guides' },
      api: { auth: { method: 'bearer' } },
      feedback: { raiseIssue: true },
      modeToggle: { default: 'dark' },
    })
    expect(result.config).toMatchObject({
      logo: { light: '/l.svg', dark: '/d.svg', href: '/' },
      topbarCtaButton: { type: 'link' },
      anchors: [{ name: 'API', url: 'api', isDefaultHidden: false, iconType: 'duotone' }],
      topAnchor: { name: 'Guides', icon: 'book-open', iconType: 'duotone' },
      api: { auth: { method: 'bearer' }, playground: { mode: 'show' } },
      feedback: { suggestEdit: false, raiseIssue: true },
      modeToggle: { default: 'dark', isHidden: false },
    })
  })

  test('a logo given as a path stays a path', () => {
    expect(valid({ name: 'Acme', navigation: [{ group: 'A', pages: ['a'] }], logo: '/logo.svg' }).config?.logo).toBe(
      '/logo.svg',
    )
  })

  test('two normalised configs never share a default object', () => {
    const first = valid({ name: 'A', navigation: [{ group: 'A', pages: ['a'] }] }).config
    const second = valid({ name: 'B', navigation: [{ group: 'A', pages: ['a'] }] }).config
    expect(first?.feedback).not.toBe(second?.feedback)
    expect(first?.topAnchor).not.toBe(second?.topAnchor)
  })
})

describe('nested groups', () => {
  const nest = (depth: number, leaf: unknown): unknown =>
    depth === 0 ? leaf : { group: `Level ${depth}`, pages: [`page-${depth}`, nest(depth - 1, leaf)] }

  test('groups nested six levels deep validate', () => {
    const result = valid({ name: 'Acme', navigation: [nest(6, 'deepest')] })
    expect(result.errors).toEqual([])
    expect(JSON.stringify(result.config?.navigation)).toContain('"deepest"')
  })

  test('an error five levels down is reported with its full path, line and column', () => {
    const text = unmark(
      [
        '{ "name": "Acme", "navigation": [',
        '  { "group": "1", "pages": [{ "group": "2", "pages": [{ "group": "3", "pages": [',
        '    { "group": "4", "pages": [{ "group": "5", "pages": ["ok", ¦false] }] }',
        '  ] }] }] }',
        '] }',
      ].join('\n'),
    )
    const result = validateDocsConfig(text.text)
    expect(result.errors).toHaveLength(1)
    expect(result.errors[0]).toMatchObject({
      path: '/navigation/0/pages/0/pages/0/pages/0/pages/0/pages/1',
      line: text.line,
      column: text.column,
    })
    expect(result.errors[0].message).toContain(
      'navigation[0].pages[0].pages[0].pages[0].pages[0].pages[1]: expected a page path or a group object {group, pages}, received the boolean false',
    )
  })

  test('an empty nested group is an error at its pages', () => {
    const text = unmark(
      '{ "name": "Acme", "navigation": [{ "group": "A", "pages": [{ "group": "B", "pages": ¦[] }] }] }',
    )
    const result = validateDocsConfig(text.text)
    expect(result.errors).toEqual([
      expect.objectContaining({ path: '/navigation/0/pages/0/pages', line: 1, column: text.column }),
    ])
  })
})

describe('unknown properties: warnings with suggestions, errors in strict mode', () => {
  const WARNING_ROWS: { where: string; property: string; path: string; suggestion?: string }[] = [
    { where: 'top level, misspelt', property: '¦"favicn": "/favicon.svg"', path: '/favicn', suggestion: 'favicon' },
    { where: 'top level, wrong case', property: '¦"TopbarLinks": []', path: '/TopbarLinks', suggestion: 'topbarLinks' },
    { where: 'top level, swapped letters', property: '¦"tasb": []', path: '/tasb', suggestion: 'tabs' },
    {
      where: 'top level, vendor extra',
      property: '¦"tracking": { "ga4": { "measurementId": "G-1" } }',
      path: '/tracking',
    },
    {
      where: 'in colors',
      property: '"colors": { "primary": "#000", ¦"primry": "#111" }',
      path: '/colors/primry',
      suggestion: 'primary',
    },
    {
      where: 'in an anchor',
      property: '"anchors": [{ "name": "A", "url": "a", ¦"icn": "book" }]',
      path: '/anchors/0/icn',
      suggestion: 'icon',
    },
    {
      where: 'in api.auth',
      property: '"api": { "auth": { "method": "key", ¦"nmae": "x-key" } }',
      path: '/api/auth/nmae',
      suggestion: 'name',
    },
    {
      where: 'in a logo object',
      property: '"logo": { "light": "/l", "dark": "/d", ¦"hrf": "/" }',
      path: '/logo/hrf',
      suggestion: 'href',
    },
    { where: 'in feedback', property: '"feedback": { ¦"thumbsDown": true }', path: '/feedback/thumbsDown' },
  ]

  test.each(WARNING_ROWS.map((row) => [row.where, row] as const))('%s', (_where, row) => {
    const { text, line, column } = unmark(withProperty(row.property))
    const result = validateDocsConfig(text)
    expect(result.valid).toBe(true)
    expect(result.errors).toEqual([])
    expect(result.config).toBeDefined()
    expect(result.warnings).toHaveLength(1)
    expect(result.warnings[0]).toMatchObject({ path: row.path, line, column })
    expect(result.warnings[0].message).toContain('unknown property')
    expect(result.warnings[0].suggestion).toBe(row.suggestion as string)

    const strict = validateDocsConfig(text, { strict: true })
    expect(strict.valid).toBe(false)
    expect(strict.config).toBeUndefined()
    expect(strict.warnings).toEqual([])
    expect(strict.errors).toEqual(result.warnings)
  })

  test('strict mode changes nothing for a config without unknown properties', () => {
    const text = JSON.stringify(SPEC_EXAMPLE)
    expect(validateDocsConfig(text, { strict: true })).toEqual(validateDocsConfig(text))
  })
})

describe('reporting', () => {
  test('every issue is reported, errors and warnings each in document order', () => {
    const marked = [
      '{',
      '  "footerSocials": { "myspace": "https://myspace.com/acme" },',
      '  "name": "Acme",',
      '  "colors": { "primary": "red", "accent": "#fff" },',
      '  "navigation": [{ "group": "A", "pages": [] }],',
      '  "topbarCtaButton": { "url": "https://app.example.com" },',
      '  "extra": 1',
      '}',
    ].join('\n')
    const result = validateDocsConfig(marked)
    expect(result.errors.map((issue) => [issue.path, issue.line])).toEqual([
      ['/footerSocials/myspace', 2],
      ['/colors/primary', 4],
      ['/navigation/0/pages', 5],
      ['/topbarCtaButton/name', 6],
    ])
    expect(result.warnings.map((issue) => [issue.path, issue.line])).toEqual([
      ['/colors/accent', 4],
      ['/extra', 7],
    ])
    const strict = validateDocsConfig(marked, { strict: true })
    expect(strict.errors.map((issue) => issue.line)).toEqual([2, 4, 4, 5, 6, 7])
  })

  test('errors carry what was expected and what was received', () => {
    const result = validateDocsConfig(withProperty('"api": { "auth": { "method": "oauth" } }'))
    expect(result.errors[0]).toMatchObject({ expected: 'one of bearer, basic, key, cobo', received: '"oauth"' })
  })

  test('a document that is not an object says so', () => {
    const result = validateDocsConfig('[{ "group": "A", "pages": ["a"] }]')
    expect(result.errors).toEqual([
      expect.objectContaining({
        path: '',
        line: 1,
        column: 1,
        message: expect.stringContaining('expected a JSON object'),
      }),
    ])
  })

  test('an object navigation is the current shape: its required keys are reported, not the spec shape', () => {
    const { text, line, column } = unmark('¦{\n  "name": "Acme",\n  "navigation": { "tabs": [] }\n}')
    const result = validateDocsConfig(text)
    expect(result.errors.map((issue) => issue.path)).toEqual(['/theme', '/colors'])
    expect(result.errors[0]).toMatchObject({ line, column })
    expect(result.errors[0].message).toContain('theme')
  })

  test('positions stay right after strings holding brackets, braces, escaped quotes and backslashes', () => {
    const { text, line, column } = unmark(
      [
        '{ "name": "A \\"quoted\\" [x] {y} \\\\",',
        '  "navigation": [{ "group": "}]\\\\", "pages": ["a\\"]", { "group": "[{", "pages": ["b"] }] }],',
        '  "extra": { "nested": ["]", "}", "\\\\\\""] },',
        '  "colors": { "primary": ¦"nope" }',
        '}',
      ].join('\n'),
    )
    expect(JSON.parse(text).extra.nested).toEqual([']', '}', '\\"'])
    const result = validateDocsConfig(text)
    expect(result.errors).toEqual([expect.objectContaining({ path: '/colors/primary', line, column })])
    expect(result.warnings).toEqual([expect.objectContaining({ path: '/extra', line: 3, column: 3 })])
  })

  test('past 1000 errors the list stops, and its last entry says so', () => {
    const text = `{ "name": "Acme", "navigation": [{ "group": "A", "pages": [${Array(1500).fill('1').join(', ')}] }] }`
    const result = validateDocsConfig(text)
    expect(result.errors).toHaveLength(1001)
    expect(result.errors[999]).toMatchObject({ path: '/navigation/0/pages/999', line: 1 })
    expect(result.errors[1000].message).toContain('too many errors: the first 1000 are listed')
    expect(result.errors.slice(0, 1000).every((issue, index) => issue.path === `/navigation/0/pages/${index}`)).toBe(
      true,
    )
  })

  test('past 1000 warnings the list stops too, and the config is still valid', () => {
    const extras = Array.from({ length: 1200 }, (_, index) => `"extra${index}": ${index}`).join(',\n')
    const result = validateDocsConfig(
      `{ "name": "Acme", "navigation": [{ "group": "A", "pages": ["a"] }],\n${extras} }`,
    )
    expect(result.valid).toBe(true)
    expect(result.warnings).toHaveLength(1001)
    expect(result.warnings[1000].message).toContain('too many warnings')
  })

  test('absurd nesting is one error at the level past the limit, not a crash', () => {
    const deepNavigation = (levels: number) =>
      `{ "name": "A", "navigation": [${'{ "group": "g", "pages": ['.repeat(levels)}"p"${']}'.repeat(levels)}] }`
    // Each level is an object and an array: 60 levels nest 122 deep, within the limit of 128.
    expect(validateDocsConfig(deepNavigation(60)).valid).toBe(true)
    const TEXTS = [
      '['.repeat(200_000) + ']'.repeat(200_000),
      '{"a":'.repeat(200_000) + '1' + '}'.repeat(200_000),
      '{"a":'.repeat(200_000),
      deepNavigation(100_000),
    ]
    for (const text of TEXTS) {
      const result = validateDocsConfig(text)
      expect(result.valid).toBe(false)
      expect(result.errors).toHaveLength(1)
      expect(result.errors[0].message).toContain('nest more than 128 levels deep here')
      expect(result.errors[0].line).toBe(1)
      expect(text[result.errors[0].column - 1]).toMatch(/[[{]/)
    }
  })

  test('an issue line and column count UTF-16 units after non-ASCII text on the same line', () => {
    const { text, line, column } = unmark('{ "name": "Café ☕", "navigation": [{ "group": "Ä", "pages": ¦[] }] }')
    expect(validateDocsConfig(text).errors[0]).toMatchObject({ line, column })
  })
})
