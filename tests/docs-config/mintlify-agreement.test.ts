import { describe, expect, setDefaultTimeout, test } from 'bun:test'
import { readdirSync, readFileSync } from 'node:fs'
import { readFile } from 'node:fs/promises'
import { join } from 'node:path'
import { validateDocsConfig as mintlifyDocsJson, validateMintConfig as mintlifyMintJson } from '@mintlify/validation'
import { validateDocsConfig } from '../../src/docs-config/validation/validate'
import { isCurrentShape } from '../../src/docs-format/current-shape'
import { resolveIncludes } from '../../src/docs-format/includes'

// bun applies the preload's default timeout to the first file only (tests/setup.ts).
setDefaultTimeout(30_000)

/**
 * Our validator against Mintlify's own (`@mintlify/validation`, a dev dependency) on every real docs.json and
 * mint.json of the fixtures, in both shapes (issue #27 §1): no file Mintlify accepts may be refused here, and
 * a file it refuses may be accepted here only where tests/fixtures/README.md lists why.
 */

const FIXTURES = join(import.meta.dir, '../fixtures')

/** Files we accept and Mintlify refuses, and why (also listed in tests/fixtures/README.md); none today. */
const KNOWN_FALSE_ACCEPTANCES: Record<string, string> = {}

function corpus(): [name: string, text: string][] {
  const files: [string, string][] = []
  for (const folder of ['docs-json-corpus', 'docs-json-current']) {
    for (const name of readdirSync(join(FIXTURES, folder)).sort()) {
      if (/^(README|INDEX)|LICENSE$/.test(name)) continue
      files.push([`${folder}/${name}`, readFileSync(join(FIXTURES, folder, name), 'utf8')])
    }
  }
  return files
}

/** Mintlify's verdict, with its own choice of schema (mint.json's for an array navigation). */
function mintlifyAccepts(value: unknown): boolean {
  return (isCurrentShape(value) ? mintlifyDocsJson(value) : mintlifyMintJson(value)).success
}

describe('agreement with @mintlify/validation on real files', () => {
  const FILES = corpus()

  test('the corpus holds both shapes', () => {
    const shapes = FILES.flatMap(([, text]) => {
      try {
        return [isCurrentShape(JSON.parse(text)) ? 'current' : 'spec']
      } catch {
        return []
      }
    })
    expect(shapes.filter((shape) => shape === 'current').length).toBeGreaterThanOrEqual(4)
    expect(shapes.filter((shape) => shape === 'spec').length).toBeGreaterThanOrEqual(20)
  })

  test.each(FILES)('%s', (name, text) => {
    let value: unknown
    try {
      value = JSON.parse(text)
    } catch {
      // Mintlify cannot read it either.
      expect(validateDocsConfig(text).valid).toBe(false)
      return
    }
    const theirs = mintlifyAccepts(value)
    const ours = validateDocsConfig(text)
    if (theirs) expect({ name, errors: ours.errors }).toEqual({ name, errors: [] })
    else if (ours.valid) expect(KNOWN_FALSE_ACCEPTANCES[name]).toBeDefined()
  })

  test("mintlify/docs' docs.json, its $ref includes (fr.json, es.json, zh.json, redirects.json) resolved: both accept", async () => {
    const folder = join(FIXTURES, 'mintlify-docs')
    const text = readFileSync(join(folder, 'docs.json'), 'utf8')
    const resolved = await resolveIncludes(JSON.parse(text), 'docs.json', (path) =>
      readFile(join(folder, path), 'utf8'),
    )
    expect(mintlifyDocsJson(resolved).success).toBe(true)
    const ours = validateDocsConfig(JSON.stringify(resolved, null, 2))
    expect(ours.errors).toEqual([])
    // Unresolved, the includes are named as such rather than failing as wrong types alone.
    const raw = validateDocsConfig(text)
    expect(raw.valid).toBe(false)
    expect(raw.errors.some((issue) => issue.message.includes('include that was not resolved'))).toBe(true)
  })
})
