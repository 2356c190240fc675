import { describe, expect, setDefaultTimeout, test } from 'bun:test'
import { validateDocsConfig } from '../../src/docs-config/validation/validate'
import { textAt } from './marked-text'
import { DESCRIBED_FILES, corpusFiles, issuesOutsideText } from './corpus'

// bun applies the preload's default timeout to the first file only (tests/setup.ts).
setDefaultTimeout(30_000)

const FILES = corpusFiles()

describe('the real-world corpus through the validator', () => {
  test('the corpus is there (32 files)', () => {
    expect(FILES).toHaveLength(32)
  })

  test.each(FILES)('%s: no crash, every line and column exists in the file', (_name, text) => {
    const result = validateDocsConfig(text)
    expect(result.valid).toBe(result.errors.length === 0)
    expect(issuesOutsideText(text, [...result.errors, ...result.warnings])).toEqual([])
    for (const issue of [...result.errors, ...result.warnings]) expect(issue.message.length).toBeGreaterThan(0)
    expect(validateDocsConfig(text, { strict: true }).errors.length).toBe(result.errors.length + result.warnings.length)
  })

  test.each(DESCRIBED_FILES.map((row) => [row.file, row] as const))(
    '%s: reported as the README describes',
    (_file, row) => {
      const text = FILES.find(([name]) => name === row.file)?.[1] ?? ''
      const result = validateDocsConfig(text)
      const issue = result.errors.find(
        (candidate) => candidate.path === row.path && candidate.message.includes(row.message),
      )
      expect(issue, JSON.stringify(result.errors)).toBeDefined()
      if (issue && row.at) expect(textAt(text, issue.line, issue.column)).toStartWith(row.at)
    },
  )

  test('the files that are not JSON each get exactly one error', () => {
    for (const [name, text] of FILES) {
      let parses = true
      try {
        JSON.parse(text)
      } catch {
        parses = false
      }
      if (parses) continue
      const result = validateDocsConfig(text)
      expect({ name, count: result.errors.length, json: result.errors[0]?.message.startsWith('invalid JSON') }).toEqual(
        { name, count: 1, json: true },
      )
    }
  })

  test('some corpus files validate, and the known vendor extras are warnings, not errors', () => {
    const results = FILES.map(([, text]) => validateDocsConfig(text))
    expect(results.filter((result) => result.valid).length).toBeGreaterThan(0)
    const warned = results.flatMap((result) => result.warnings.map((warning) => warning.path))
    // Keys Mintlify's mint.json schema documents (analytics, colors.anchors, feedback.thumbsRating …) are known;
    // what it does not document is still only a warning.
    expect(warned).not.toContain('/analytics')
    expect(warned).toContain('/hideFeedbackButtons')
    expect(warned).toContain('/background/color')
  })
})
