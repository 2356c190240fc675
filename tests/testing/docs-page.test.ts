import { expect, setDefaultTimeout, test } from 'bun:test'
import { readFileSync } from 'node:fs'
import { join } from 'node:path'
import DEFAULT_DOCS from '../../src/docs-config/default-docs.json'
import { startTrellis } from '../../src/testing'
import { ROOT } from '../helpers/process'
import { namedExamples, testingSection } from './examples'

// bun applies the preload's default timeout to the first file only (tests/setup.ts).
setDefaultTimeout(30_000)

/*
 * The testing guide lives twice: in the README ("Testing with Trellis", whose examples CI runs) and on the built-in
 * documentation site (page `testing`). The two must not drift, and the site must list and serve the page.
 */

const readme = readFileSync(join(ROOT, 'README.md'), 'utf8')
const page = readFileSync(join(ROOT, 'src/docs-site/default-pages/testing.md'), 'utf8')

test("the site's page carries the README's examples, the same and in the same order", () => {
  const fromReadme = namedExamples(testingSection(readme))
  expect(fromReadme.length).toBeGreaterThanOrEqual(5)
  expect(namedExamples(page)).toEqual(fromReadme)
})

test('the default navigation lists the page, and the site serves it under its title', async () => {
  expect(JSON.stringify(DEFAULT_DOCS.navigation)).toContain('"testing"')
  await using trellis = await startTrellis()
  const response = await fetch(`${trellis.url}/docs/testing`)
  expect(response.status).toBe(200)
  const html = await response.text()
  expect(html).toContain('<h1>Testing with Trellis</h1>')
  expect(html).toMatch(/<a href="\/docs\/testing"[^>]*>Testing with Trellis<\/a>/)
  expect(html).toContain('startTrellis')
})
