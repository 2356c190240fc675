import { unstorable } from '../../db/storable-text'
import { fieldName, isPlainObject } from '../../json/pointer'
import type { Finding } from './finding'

/** `\u0000`, an escaped surrogate, or a raw one: what may hide text that cannot be stored. */
const SUSPECT = /\\u0000|\\u[dD][89a-fA-F]|[\ud800-\udfff]/

/**
 * Errors for every integer at or beyond 2^53 (served back, it may have changed), and for every key and string that
 * PostgreSQL could not store as written (NUL, lone
 * surrogates; see src/http/text.ts): docs.json is kept as `jsonb`, which refuses them, so
 * validation refuses them first, and `/docs.json/validate` agrees with `PUT /docs.json`.
 * A quick look at the text first: almost no file has an escape that could produce one.
 */
export function findUnstorableText(text: string, value: unknown, findings: Finding[], unsafeInteger: boolean): void {
  const strings = SUSPECT.test(text)
  // `unsafeInteger`: the caller's walk met an integer at or beyond 2^53, which JSON.parse may have
  // rounded, so it would be served altered. Other values skip this walk.
  if (strings || unsafeInteger) walk(value, '', findings, 0)
}

function walk(value: unknown, pointer: string, findings: Finding[], depth: number): void {
  if (typeof value === 'string') {
    const why = unstorable(value)
    if (why) findings.push(error(pointer, 'value', `${fieldName(pointer, 'docs.json')} must not contain ${why}`))
    return
  }
  if (typeof value === 'number' && Number.isInteger(value) && !Number.isSafeInteger(value)) {
    findings.push(
      error(
        pointer,
        'value',
        `${fieldName(pointer, 'docs.json')} is an integer at or beyond 2^53, which JSON numbers cannot carry ` +
          `exactly (it may be served rounded); write it as a string`,
      ),
    )
    return
  }
  // The caller has already refused values nested deeper than the scanner's limit.
  if (Array.isArray(value)) {
    value.forEach((item, index) => walk(item, `${pointer}/${index}`, findings, depth + 1))
    return
  }
  if (!isPlainObject(value)) return
  for (const [key, item] of Object.entries(value)) {
    const at = `${pointer}/${key.replace(/~/g, '~0').replace(/\//g, '~1')}`
    const why = unstorable(key)
    if (why) findings.push(error(at, 'key', `${fieldName(pointer, 'docs.json')}: a key must not contain ${why}`))
    walk(item, at, findings, depth + 1)
  }
}

function error(at: string, part: Finding['part'], message: string): Finding {
  return { severity: 'error', path: at, at, part, message }
}
