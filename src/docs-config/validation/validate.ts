import { describeValue, isPlainObject } from '../../json/pointer'
import type { Finding } from './finding'
import { FINDING_LIMIT, findUnknownProperties, inspect } from './inspect'
import { MAX_DEPTH } from '../../json/grammar'
import { keysInText, keysInValue, TOO_DEEP, type Walked } from './key-count'
import { planOf, type Plan } from './plan'
import { scanJson } from '../../json/positional'
import type { NodePosition } from '../../json/positions'
import type { Issue, ValidateOptions, ValidationResult } from '../model'
import { applyDefaults } from '../defaults'
import type { DocsConfig } from '../../docs-format/docs-json'
import { shapeOf, type Shape } from './shapes'
import { NodeSearch } from '../../json/node-search'
import { findUnstorableText } from './unstorable-values'
import { TextPositions, type LineColumn } from './text-position'

/**
 * Validates and normalises a docs.json text.
 *
 * Every problem is reported, in document order, with a JSON Pointer and the line and column in `text`.
 * Invalid JSON is a single error explaining the likely cause; duplicate keys are errors at their second
 * occurrence; unknown properties are warnings (errors when `strict`). `config`, with the schema's defaults
 * filled in, is present only when the result is valid.
 *
 * @example
 * const result = validateDocsConfig(await file.text())
 * for (const issue of result.errors) console.log(`${issue.line}:${issue.column} ${issue.message}`)
 */
export function validateDocsConfig(text: string, options: ValidateOptions = {}): ValidationResult {
  try {
    return validate(text, options)
  } catch (error) {
    // Depth is limited before any walk recurses; should a stack still run out, answer instead of crashing.
    if (error instanceof RangeError) return tooDeep(text)
    throw error
  }
}

function tooDeep(text: string): ValidationResult {
  let depth = 0
  let offset = 0
  for (let index = 0; index < text.length; index++) {
    const code = text.charCodeAt(index)
    if (code === 34) {
      // Skip the string, honouring escaped quotes.
      for (index++; index < text.length && text.charCodeAt(index) !== 34; index++)
        if (text.charCodeAt(index) === 92) index++
    } else if (code === 123 || code === 91) {
      if (++depth > MAX_DEPTH) {
        offset = index
        break
      }
    } else if (code === 125 || code === 93) depth--
  }
  const issue: Issue = {
    path: '',
    ...new TextPositions(text).at(offset),
    message: `docs.json: objects and arrays nest more than ${MAX_DEPTH} levels deep here; flatten the file`,
  }
  return { valid: false, errors: [issue], warnings: [] }
}

/** Built on first use rather than at start-up; looking it up on every validation cost more than keeping it. */
const PLANS = new Map<Shape, Plan>()

function planOfShape(shape: Shape): Plan {
  let plan = PLANS.get(shape)
  if (plan === undefined) PLANS.set(shape, (plan = planOf(shape.schema)))
  return plan
}

function validate(text: string, options: ValidateOptions): ValidationResult {
  // Editors on Windows may save a byte-order mark; JSON.parse rejects it, the scanner skips it.
  const source = text.charCodeAt(0) === 0xfeff ? text.slice(1) : text
  let value: unknown
  try {
    value = JSON.parse(source)
  } catch {
    return syntaxFailure(text)
  }
  const walked: Walked = { unsafeInteger: false, unknownKey: false }
  const shape = shapeOf(value)
  const parsedKeys = keysInValue(value, planOfShape(shape), 0, walked)
  if (parsedKeys === TOO_DEEP) return tooDeep(text)
  const mayHaveDuplicates = keysInText(source) !== parsedKeys
  const findings: Finding[] = []
  if (!isPlainObject(value)) {
    findings.push(rootNotAnObject(value, shape))
  } else {
    // What the schema with every object closed would answer, for less: the key count saw the unknown keys.
    const typesAccepted = shape.check.Check(value)
    const closedAccepted = typesAccepted && !walked.unknownKey
    if (!typesAccepted) inspect(shape.schema, value, findings)
    else if (!closedAccepted) findUnknownProperties(shape.schema, value, findings)
    if (!typesAccepted && !findings.some((finding) => finding.severity === 'error'))
      findings.push(schemaFallback(shape, value))
    shape.rules(value, findings)
  }
  findUnstorableText(source, value, findings, walked.unsafeInteger)
  if (findings.length === 0 && !mayHaveDuplicates) {
    return { valid: true, errors: [], warnings: [], config: normalised(shape, value) }
  }
  // Located before defaults are filled in, so that every node the search meets is one written in the text.
  return locate(text, value, shape, findings, options, mayHaveDuplicates)
}

function locate(
  text: string,
  value: unknown,
  shape: Shape,
  findings: Finding[],
  options: ValidateOptions,
  mayHaveDuplicates: boolean,
): ValidationResult {
  const located =
    (!mayHaveDuplicates && searched(text, value, findings, options)) ||
    scanned(text, findings, options, mayHaveDuplicates)
  located.sort((a, b) => a.offset - b.offset)
  const errors = listed(located, 'error')
  const warnings = listed(located, 'warning')
  if (errors.length > 0) return { valid: false, errors, warnings }
  return { valid: true, errors, warnings, config: normalised(shape, value) }
}

/** The valid config with its shape's defaults filled in. */
function normalised(shape: Shape, value: unknown): DocsConfig {
  applyDefaults(shape.schema, value)
  return value as DocsConfig
}

type Located = { offset: number; severity: Finding['severity']; issue: Issue }

/**
 * Past this many findings one scan of the whole text is cheaper than a search per finding (and a search for
 * array items skips every item before them).
 */
const SEARCHED_FINDINGS_LIMIT = 32

/**
 * The findings located by searching the text from their parents' offsets, which costs far less than a scan
 * when they are few; undefined when there are too many or a search cannot tell.
 */
function searched(text: string, value: unknown, findings: Finding[], options: ValidateOptions): Located[] | undefined {
  if (findings.length > SEARCHED_FINDINGS_LIMIT) return undefined
  const search = new NodeSearch(text, value)
  const offsets: number[] = []
  for (const finding of findings) {
    const offset = search.offsetOf(finding.at, finding.part)
    if (offset === -1) return undefined
    offsets.push(offset)
  }
  const order = offsets.map((_, index) => index).sort((a, b) => offsets[a] - offsets[b])
  // In ascending order, so that lines are counted in one pass.
  const positions = new TextPositions(text)
  const located: Located[] = []
  for (const index of order) {
    const finding = findings[index]
    const offset = offsets[index]
    located.push({
      offset,
      severity: options.strict ? 'error' : finding.severity,
      issue: issueOf(finding, positions.at(offset)),
    })
  }
  return located
}

/** The findings (and any duplicate keys) located by one scan of the text. */
function scanned(text: string, findings: Finding[], options: ValidateOptions, mayHaveDuplicates: boolean): Located[] {
  // Without possible duplicates, only the nodes that findings point at (and their ancestors) need positions.
  const scan = scanJson(text, mayHaveDuplicates ? undefined : focusOf(findings))
  const positions = scan.ok ? scan.positions : new Map<string, NodePosition>()
  const located: Located[] = []
  if (scan.ok) {
    for (const duplicate of scan.duplicates) {
      located.push({
        offset: duplicate.offset,
        severity: 'error',
        issue: {
          path: duplicate.pointer,
          line: duplicate.line,
          column: duplicate.column,
          message:
            `duplicate key ${JSON.stringify(duplicate.key)}; it already appears at line ${duplicate.firstLine}, ` +
            `and only one of the two values would be used`,
          received: JSON.stringify(duplicate.key),
        },
      })
    }
  }
  for (const finding of findings) {
    const { offset, line, column } = positionOf(positions, finding)
    located.push({
      offset,
      severity: options.strict ? 'error' : finding.severity,
      issue: issueOf(finding, { line, column }),
    })
  }
  return located
}

function issueOf(finding: Finding, { line, column }: LineColumn): Issue {
  const issue: Issue = { path: finding.path, line, column, message: finding.message }
  if (finding.expected !== undefined) issue.expected = finding.expected
  if (finding.received !== undefined) issue.received = finding.received
  if (finding.suggestion !== undefined) issue.suggestion = finding.suggestion
  return issue
}

/**
 * The issues of one severity, in document order. Past {@link FINDING_LIMIT} the list ends with one issue
 * saying that more were not checked, placed at the last one listed.
 */
function listed(located: Located[], severity: Finding['severity']): Issue[] {
  const issues = located.filter((entry) => entry.severity === severity).map((entry) => entry.issue)
  if (issues.length < FINDING_LIMIT) return issues
  const shown = issues.slice(0, FINDING_LIMIT)
  const last = shown[shown.length - 1]
  shown.push({
    path: last.path,
    line: last.line,
    column: last.column,
    message: `too many ${severity}s: the first ${FINDING_LIMIT} are listed and the rest of the file was not checked; fix these and validate again`,
  })
  return shown
}

function focusOf(findings: Finding[]): Set<string> {
  const focus = new Set<string>([''])
  for (const finding of findings) {
    for (
      let pointer = finding.at;
      pointer !== '' && !focus.has(pointer);
      pointer = pointer.slice(0, pointer.lastIndexOf('/'))
    ) {
      focus.add(pointer)
    }
  }
  return focus
}

const START_OF_TEXT = { offset: 0, line: 1, column: 1 }

/** Where a finding's node starts, or its nearest ancestor present in the text. */
function positionOf(
  positions: Map<string, NodePosition>,
  finding: Finding,
): { offset: number; line: number; column: number } {
  let pointer = finding.at
  for (;;) {
    const position = positions.get(pointer)
    if (position !== undefined) {
      if (finding.part === 'key' && pointer === finding.at && position.key !== undefined) {
        return {
          offset: position.key,
          line: position.keyLine ?? position.line,
          column: position.keyColumn ?? position.column,
        }
      }
      return { offset: position.value, line: position.line, column: position.column }
    }
    if (pointer === '') return START_OF_TEXT
    pointer = pointer.slice(0, pointer.lastIndexOf('/'))
  }
}

function syntaxFailure(text: string): ValidationResult {
  const scan = scanJson(text)
  const offset = scan.ok ? 0 : scan.error.offset
  const reason = scan.ok ? 'the text could not be parsed' : scan.error.message
  const issue: Issue = { path: '', ...new TextPositions(text).at(offset), message: `invalid JSON: ${reason}` }
  return { valid: false, errors: [issue], warnings: [] }
}

function rootNotAnObject(value: unknown, shape: Shape): Finding {
  return {
    severity: 'error',
    path: '',
    at: '',
    part: 'value',
    message: `docs.json: expected ${shape.expected}, received ${describeValue(value)}`,
    expected: 'an object',
    received: describeValue(value),
  }
}

/** Should the walk ever miss something the compiled schema rejects, TypeBox's own first error is reported. */
function schemaFallback(shape: Shape, value: unknown): Finding {
  const first = shape.check.Errors(value).First()
  const path = first?.path ?? ''
  return {
    severity: 'error',
    path,
    at: path,
    part: 'value',
    message: `${path || 'docs.json'}: ${first?.message ?? 'does not match the docs.json schema'}`,
  }
}
