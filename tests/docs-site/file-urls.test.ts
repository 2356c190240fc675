import { describe, expect, setDefaultTimeout, test } from 'bun:test'
import { imageUrl, repositoryFileUrl } from '../../src/docs-site/links'

// bun applies the preload's default timeout to the first file only (tests/setup.ts).
setDefaultTimeout(30_000)

/** Where the site points an image that docs.json or a page names by a path in the repository. */

describe('docs.json images (logo, favicon, backgroundImage)', () => {
  const rows: [string, string | undefined][] = [
    ['/logo/light.svg', '/docs/logo/light.svg'],
    ['logo/light.svg', '/docs/logo/light.svg'],
    ['./favicon.png', '/docs/favicon.png'],
    ['/logo/My Logo (1).svg', '/docs/logo/My%20Logo%20(1).svg'],
    ['logo/a%20b.svg', '/docs/logo/a%20b.svg'],
    ['/images/x.png?v=2', '/docs/images/x.png'],
    ['/images/a"b.png', '/docs/images/a%22b.png'],
    ['../outside.png', undefined],
    ['javascript:alert(1)', undefined],
    ['https://cdn.example.com/logo.svg', 'https://cdn.example.com/logo.svg'],
    ['data:image/png;base64,AAAA', 'data:image/png;base64,AAAA'],
  ]
  for (const [written, expected] of rows)
    test(`${JSON.stringify(written)} → ${expected}`, () => expect(imageUrl(written)).toBe(expected))
})

describe('page images, from the page at guides/setup', () => {
  const rows: [string, string | undefined][] = [
    ['/images/x.png', '/docs/images/x.png'],
    ['images/x.png', '/docs/guides/images/x.png'],
    ['../images/x.png', '/docs/images/x.png'],
    ['./x.png#frag', '/docs/guides/x.png#frag'],
    ['../../../x.png', undefined],
    ['https://example.com/x.png', undefined],
    ['//cdn.example.com/x.png', undefined],
    ['data:image/png;base64,AAAA', undefined],
  ]
  for (const [written, expected] of rows)
    test(`${JSON.stringify(written)} → ${expected}`, () =>
      expect(repositoryFileUrl(written, 'guides/setup')).toBe(expected))
})
