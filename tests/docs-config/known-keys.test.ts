import { describe, expect, setDefaultTimeout, test } from 'bun:test'
import { TypeCompiler } from '@sinclair/typebox/compiler'
import { closeObjects, DocsConfigSchema } from '../../src/docs-format/docs-json'
import { validateDocsConfig } from '../../src/docs-config/validation/validate'

// bun applies the preload's default timeout to the first file only (tests/setup.ts).
setDefaultTimeout(30_000)

// Issue #17: unknown keys used to be detected by a second compiled check with every object closed; the key
// count now notices them on its way (following the schema, remembering each kind of object's last keys).
// That closed check stays here as the reference the walk must agree with.
const CLOSED = TypeCompiler.Compile(closeObjects(DocsConfigSchema))

const NAVIGATION = [{ group: 'A', pages: ['a', { group: 'B', pages: ['b', { group: 'C', pages: ['c'] }] }] }]
const base = (extra: Record<string, unknown> = {}) => ({ name: 'Acme', navigation: NAVIGATION, ...extra })

/** Configs whose types are all right, with and without keys the schema does not name. */
const ROWS: { where: string; config: unknown; unknown: string[] }[] = [
  {
    where: 'none',
    config: base({ colors: { primary: '#000', background: { light: '#fff', dark: '#000' } } }),
    unknown: [],
  },
  {
    where: 'in a group three levels down',
    config: base({
      navigation: [{ group: 'A', pages: [{ group: 'B', pages: [{ group: 'C', pages: ['c'], note: 1 }] }] }],
    }),
    unknown: ['/navigation/0/pages/0/pages/0/note'],
  },
  {
    where: 'in a gradient, the object branch of a union',
    config: base({ anchors: [{ name: 'A', url: 'a', color: { from: '#000', to: '#fff', via: '#888' } }] }),
    unknown: ['/anchors/0/color/via'],
  },
  {
    where: 'in the second topbar link',
    config: base({
      topbarLinks: [
        { name: 'A', url: 'https://a.example.com' },
        { name: 'B', target: '_blank' },
      ],
    }),
    unknown: ['/topbarLinks/1/target'],
  },
  {
    where: 'in colors.background',
    config: base({ colors: { primary: '#000', background: { light: '#fff', dark: '#000', dim: '#111' } } }),
    unknown: ['/colors/background/dim'],
  },
  {
    where: 'a key named like an Object.prototype member',
    config: base({ anchors: [{ name: 'A', url: 'a', constructor: 'x', toString: 'y' }] }),
    unknown: ['/anchors/0/constructor', '/anchors/0/toString'],
  },
  {
    where: 'an object under an unknown key (only the outer key is reported)',
    config: base({ tracking: { ga4: { measurementId: 'G-1' }, posthog: { apiKey: 'k' } } }),
    unknown: ['/tracking'],
  },
  {
    where:
      'objects of one kind with their keys in different orders, the last with an unknown key where the one before had a known key',
    config: base({
      anchors: [
        { name: 'A', url: 'a', icon: 'book', color: '#000' },
        { url: 'b', name: 'B', iconType: 'solid' },
        { name: 'C', url: 'c', icn: 'book' },
      ],
    }),
    unknown: ['/anchors/2/icn'],
  },
]

describe('unknown keys are found as the closed schema would find them', () => {
  test.each(ROWS.map((row) => [row.where, row] as const))('%s', (_where, row) => {
    const text = JSON.stringify(row.config, null, 2)
    expect(CLOSED.Check(JSON.parse(text))).toBe(row.unknown.length === 0)
    const result = validateDocsConfig(text)
    expect(result.errors).toEqual([])
    expect(result.warnings.map((warning) => warning.path)).toEqual(row.unknown)
  })

  test('a key is never taken as known because an object before it, in an earlier validation, had a known key there', () => {
    const first = base({ api: { baseUrl: 'https://api.example.com', auth: { method: 'key' } } })
    const second = base({ api: { baseUrl: 'https://api.example.com', auht: { method: 'key' } } })
    for (const config of [first, second, first, second]) {
      const text = JSON.stringify(config)
      const unknown = validateDocsConfig(text).warnings.map((warning) => warning.path)
      expect(unknown).toEqual(config === first ? [] : ['/api/auht'])
      expect(CLOSED.Check(JSON.parse(text))).toBe(config === first)
    }
  })

  test('a "__proto__" key written in the text is an unknown key, not the prototype', () => {
    const text =
      '{"name": "Acme", "navigation": [{"group": "A", "pages": ["a"]}], "logo": {"light": "/l", "dark": "/d", "__proto__": {"x": 1}}}'
    expect(CLOSED.Check(JSON.parse(text))).toBe(false)
    expect(validateDocsConfig(text).warnings.map((warning) => warning.path)).toEqual(['/logo/__proto__'])
  })

  test('with a wrong type as well, the explaining walk still reports both', () => {
    const text = JSON.stringify(base({ favicon: 1, favicn: '/f.svg' }))
    const result = validateDocsConfig(text)
    expect(result.errors.map((error) => error.path)).toEqual(['/favicon'])
    expect(result.warnings.map((warning) => warning.path)).toEqual(['/favicn'])
  })
})

describe('defaults are filled in the schema order', () => {
  test('missing defaults are added after the keys written, in the order the schema lists them', () => {
    const config = validateDocsConfig(
      JSON.stringify({
        modeToggle: {},
        name: 'Acme',
        anchors: [{ url: 'a', name: 'A' }],
        navigation: NAVIGATION,
        logo: { dark: '/d', light: '/l' },
      }),
    ).config
    expect(JSON.stringify(config)).toBe(
      JSON.stringify({
        modeToggle: { isHidden: false },
        name: 'Acme',
        anchors: [{ url: 'a', name: 'A', isDefaultHidden: false, iconType: 'duotone' }],
        navigation: NAVIGATION,
        logo: { dark: '/d', light: '/l', href: '/' },
        topAnchor: { name: 'Documentation', icon: 'book-open', iconType: 'duotone' },
        feedback: { suggestEdit: false, raiseIssue: false },
      }),
    )
  })
})
