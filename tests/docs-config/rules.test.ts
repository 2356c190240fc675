import { describe, expect, setDefaultTimeout, test } from 'bun:test'
import { validateDocsConfig } from '../../src/docs-config/validation/validate'
import { unmark, withProperty } from './marked-text'
import { ROWS, type Row } from './rules-rows'

// bun applies the preload's default timeout to the first file only (tests/setup.ts).
setDefaultTimeout(30_000)

/** Every rule of the docs.json contract, broken and respected, one row each (the rows: rules-rows.ts). */

function brokenText(row: Row): string {
  return 'property' in row ? withProperty(row.property) : row.document
}

function respectedText(row: Row): string {
  return 'property' in row ? withProperty(row.respected) : row.respectedDocument
}

describe('each rule of the contract, broken: the error names the field at its line and column', () => {
  test.each(ROWS.map((row) => [row.rule, row] as const))('%s', (_rule, row) => {
    const { text, line, column } = unmark(brokenText(row))
    const result = validateDocsConfig(text)
    expect(result.valid).toBe(false)
    expect(result.config).toBeUndefined()
    const issue = result.errors.find((candidate) => candidate.path === row.path)
    expect(issue, JSON.stringify(result.errors)).toBeDefined()
    expect({ line: issue?.line, column: issue?.column }).toEqual({ line, column })
    expect(issue?.message).toContain(row.message)
    if (row.suggestion !== undefined) expect(issue?.suggestion).toBe(row.suggestion)
    expect(result.errors).toHaveLength(1)
  })
})

describe('each rule of the contract, respected: no error', () => {
  test.each(ROWS.map((row) => [row.rule, row] as const))('%s', (_rule, row) => {
    const result = validateDocsConfig(respectedText(row))
    expect(result.errors).toEqual([])
    expect(result.valid).toBe(true)
    expect(result.config).toBeDefined()
  })
})
