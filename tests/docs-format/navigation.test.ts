import { describe, expect, setDefaultTimeout, test } from 'bun:test'
import { navigationOf } from '../../src/docs-format/navigation/build'
import type { NavEntry } from '../../src/docs-format/navigation/model'

// bun applies the preload's default timeout to the first file only (tests/setup.ts).
setDefaultTimeout(30_000)

/** The one normalised navigation both the site and `docs push` read (issue #27 §1, §3). */

const names = (entries: NavEntry[] | undefined): string[] =>
  (entries ?? []).flatMap((entry) =>
    entry.kind === 'page' ? [entry.path] : [`[${entry.name}]`, ...names(entry.entries)],
  )

describe('the spec shape', () => {
  const nav = navigationOf({
    name: 'A',
    navigation: [{ group: 'G', pages: ['intro', '/guides/one.mdx', { group: 'Sub', pages: ['guides/two'] }] }],
    tabs: [{ name: 'API', url: 'api' }],
    anchors: [{ name: 'Blog', url: 'https://blog.example.com', icon: 'rss' }],
    versions: ['v2', { name: 'v1' }],
    topbarLinks: [{ name: 'Support', url: 'mailto:a@b.c' }],
    topbarCtaButton: { type: 'github', url: 'https://github.com/a/b' },
    footerSocials: { twitter: 'https://twitter.com/a' },
    favicon: '/f.svg',
    openapi: ['openapi.yaml'],
  })

  test('pages in order, spelled as paths; tabs by prefix; an absolute anchor is a link out', () => {
    expect(nav.shape).toBe('spec')
    expect(nav.pages).toEqual(['intro', 'guides/one', 'guides/two'])
    expect(nav.tabs).toEqual([expect.objectContaining({ kind: 'tab', name: 'API', prefix: 'api' })])
    expect(nav.anchors).toEqual([expect.objectContaining({ external: 'https://blog.example.com', icon: 'rss' })])
  })

  test('versions, navbar, footer, favicon and OpenAPI sources in the common form', () => {
    expect(nav.versions).toEqual(['v2', 'v1'])
    expect(nav.navbar).toEqual({
      links: [{ label: 'Support', href: 'mailto:a@b.c' }],
      primary: { kind: 'github', href: 'https://github.com/a/b' },
    })
    expect(nav.footer.socials).toEqual([['twitter', 'https://twitter.com/a']])
    expect(nav.favicon).toEqual({ light: '/f.svg' })
    expect(nav.openapi).toEqual(['openapi.yaml'])
  })
})

describe('the current shape', () => {
  const nav = navigationOf({
    theme: 'mint',
    name: 'A',
    colors: { primary: '#000' },
    api: { openapi: 'api.yaml' },
    navigation: {
      global: { anchors: [{ anchor: 'Status', href: 'https://status.example.com' }] },
      versions: [
        { version: 'v1', groups: [{ group: 'Old', pages: ['v1/a'] }] },
        {
          version: 'v2',
          default: true,
          tabs: [
            {
              tab: 'Guides',
              groups: [
                { group: 'Start', root: 'start', pages: ['a', { group: 'Deep', pages: ['b'] }] },
                { group: 'Internal', hidden: true, pages: ['internal'] },
              ],
            },
            { tab: 'API', openapi: 'openapi/v2.json', pages: ['api/x'] },
            { tab: 'Old', hidden: true, pages: ['old'] },
          ],
        },
      ],
    },
  })

  test("every page, hidden items' included (they are published, only not listed), group roots first", () => {
    expect(nav.shape).toBe('current')
    expect(nav.pages).toEqual(['v1/a', 'start', 'a', 'b', 'internal', 'api/x', 'old'])
  })

  test('tabs with their own sidebars; hidden ones left out of the sidebar', () => {
    expect(nav.tabs.map((tab) => tab.name)).toEqual(['Guides', 'API'])
    expect(names(nav.tabs[0]!.entries)).toEqual(['[Start]', 'a', '[Deep]', 'b'])
    expect(nav.tabs[0]!.entries?.[0]).toMatchObject({ kind: 'group', root: 'start' })
    expect(nav.tabs.every((tab) => tab.version === 'v2')).toBe(true)
  })

  test('versions (the default first) hold their sections; global anchors link out', () => {
    expect(nav.versions).toEqual(['v2', 'v1'])
    const v1 = nav.anchors.find((anchor) => anchor.name === 'v1')
    expect(names(v1?.entries)).toEqual(['[Old]', 'v1/a'])
    expect(nav.anchors.find((anchor) => anchor.name === 'Status')?.external).toBe('https://status.example.com')
  })

  test('OpenAPI sources of groups, sections and api are collected for the pages generated from them', () => {
    expect(nav.openapi.sort()).toEqual(['api.yaml', 'openapi/v2.json'])
  })
})
