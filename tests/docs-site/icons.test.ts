import { describe, expect, setDefaultTimeout, test } from 'bun:test'
import { iconSvg, socialIcon } from '../../src/docs-site/icons'

// bun applies the preload's default timeout to the first file only (tests/setup.ts).
setDefaultTimeout(30_000)

/** Font Awesome Free by docs.json's names: which icon a name and iconType draw, and the markup around it. */

/** The icon an SVG draws, told apart by its path (the viewBox alone is shared by many icons). */
function pathOf(svg: string): string | undefined {
  return /<path d="([^"]+)"/.exec(svg)?.[1]
}

describe('which icon a name draws', () => {
  test.each([
    // [name, iconType, the name and pack of the icon expected]
    ['book-open', 'solid', 'book-open', 'solid'],
    ['book-open', undefined, 'book-open', 'solid'],
    ['github', 'brands', 'github', 'brands'],
    ['github', undefined, 'github', 'brands'],
    ['discord', undefined, 'discord', 'brands'],
    ['twitter', 'brands', 'twitter', 'brands'],
    ['x-twitter', undefined, 'x-twitter', 'brands'],
    ['fa-github', 'brands', 'github', 'brands'],
    ['FA-Book-Open', 'solid', 'book-open', 'solid'],
    ['  rocket  ', 'solid', 'rocket', 'solid'],
    // Aliases from icon[2]
    ['trash-alt', 'solid', 'trash-can', 'solid'],
    ['home', 'solid', 'house', 'solid'],
    ['warning', 'solid', 'triangle-exclamation', 'solid'],
    // Styles Free does not have are drawn solid; regular when asked, solid when regular has none
    ['star', 'regular', 'star', 'regular'],
    ['star', 'duotone', 'star', 'solid'],
    ['star', 'light', 'star', 'solid'],
    ['star', 'thin', 'star', 'solid'],
    ['star', 'sharp-solid', 'star', 'solid'],
    ['star', 'SOLID', 'star', 'solid'],
    ['rocket', 'regular', 'rocket', 'solid'],
    ['github', 'solid', 'github', 'brands'],
    ['star', 'no-such-style', 'star', 'solid'],
  ] as const)('%p (%p) draws %s from %s', (name, iconType, expectedName, expectedPack) => {
    const expected = iconSvg(expectedName, expectedPack === 'brands' ? 'brands' : expectedPack)
    expect(expected).not.toBe('')
    expect(pathOf(iconSvg(name, iconType))).toBe(pathOf(expected))
  })

  test('regular and solid draw different stars', () => {
    expect(pathOf(iconSvg('star', 'regular'))).not.toBe(pathOf(iconSvg('star', 'solid')))
  })
})

describe('unknown or hostile names draw nothing and never throw', () => {
  test.each([
    ['an unknown name', 'no-such-icon'],
    ['undefined', undefined],
    ['empty', ''],
    ['only the prefix', 'fa-'],
    ['markup', '"><script>alert(1)</script>'],
    ['a URL (Mintlify allows these; the site does not fetch them)', 'https://example.com/icon.svg'],
    ['an Object.prototype member', 'constructor'],
    ['__proto__', '__proto__'],
    ['a non-string from untyped JSON', 42 as unknown as string],
  ])('%s', (_name, name) => {
    expect(iconSvg(name, 'brands')).toBe('')
    expect(iconSvg(name)).toBe('')
  })
})

describe('the markup', () => {
  test('viewBox from the icon size, currentColor, hidden from screen readers by default', () => {
    const svg = iconSvg('github', 'brands')
    expect(svg).toStartWith(
      '<svg xmlns="http://www.w3.org/2000/svg" viewBox="0 0 496 512" fill="currentColor" aria-hidden="true"><path d="M165.9 397.4',
    )
    expect(svg).toEndWith('"/></svg>')
  })

  test.each([
    ['a label makes it an image', { label: 'GitHub' }, ' role="img" aria-label="GitHub"'],
    [
      'the label is escaped',
      { label: '"><script>alert(1)</script>' },
      ' role="img" aria-label="&quot;&gt;&lt;script&gt;alert(1)&lt;/script&gt;"',
    ],
    ['a class, escaped', { className: 'icon" onload="x' }, ' class="icon&quot; onload=&quot;x" aria-hidden="true"'],
  ] as const)('%s', (_name, options, fragment) => {
    const svg = iconSvg('github', 'brands', options)
    expect(svg).toContain(fragment)
    expect(svg.match(/"/g)!.length % 2).toBe(0)
    expect(svg).not.toContain('<script')
  })
})

describe('footerSocials keys', () => {
  test.each([
    ['website', 'globe', 'solid'],
    ['x', 'x-twitter', 'brands'],
    ['hacker-news', 'hacker-news', 'brands'],
    ['github', 'github', 'brands'],
    ['discord', 'discord', 'brands'],
    ['slack', 'slack', 'brands'],
    ['linkedin', 'linkedin', 'brands'],
    ['instagram', 'instagram', 'brands'],
    ['youtube', 'youtube', 'brands'],
    ['facebook', 'facebook', 'brands'],
    ['medium', 'medium', 'brands'],
    ['telegram', 'telegram', 'brands'],
    ['twitter', 'twitter', 'brands'],
    ['reddit', 'reddit', 'brands'],
    ['bluesky', 'bluesky', 'brands'],
    ['threads', 'threads', 'brands'],
    ['podcast', 'podcast', 'solid'],
    ['earth-americas', 'earth-americas', 'solid'],
  ] as const)('%s → %s (%s)', (platform, name, pack) => {
    const expected = iconSvg(name, pack)
    expect(expected).not.toBe('')
    expect(socialIcon(platform)).toBe(expected)
  })

  test('an unknown platform draws nothing; options pass through', () => {
    expect(socialIcon('myspace-classic')).toBe('')
    expect(socialIcon('github', { label: 'GitHub' })).toContain('aria-label="GitHub"')
  })
})
