import { parse as parseYaml } from 'yaml'

/**
 * OpenAPI documents of a docs repository (`openapi.yaml`, `api/openapi.json`): read from JSON or YAML, bounded,
 * and checked as OpenAPI 3.0 or 3.1 far enough for the site to render every operation. Shared by the asset
 * routes (which refuse a broken document at PUT), the site (which reads the stored ones) and `docs push`.
 */

/** An OpenAPI document's bytes; larger ones are refused before they are parsed. */
export const OPENAPI_MAX_BYTES = 8 * 1024 * 1024
/** Nesting deeper than this is refused: every later walk of the document recurses. */
const OPENAPI_MAX_DEPTH = 64
/** Values (objects, arrays, scalars) in all: bounds every walk of the document, whatever its shape. */
const OPENAPI_MAX_NODES = 2_000_000
/** YAML aliases expand in place; a few are fine, thousands are a "billion laughs". */
const MAX_ALIAS_COUNT = 100
/** `$ref`s checked to name something: enough for the largest real documents, bounded for hostile ones. */
const MAX_CHECKED_REFS = 100_000

const METHODS = ['get', 'put', 'post', 'delete', 'options', 'head', 'patch', 'trace']

/** A document that cannot be used; the message names the problem and where it is. */
export class OpenApiFileError extends Error {
  override name = 'OpenApiFileError'
}

type JsonObject = Record<string, unknown>
const isObject = (value: unknown): value is JsonObject =>
  typeof value === 'object' && value !== null && !Array.isArray(value)

/**
 * Parses `text` as JSON (a `.json` file) or YAML (anything else; YAML also reads JSON), bounded in size, depth,
 * node count and alias expansion.
 *
 * @throws OpenApiFileError naming the problem (with the line for a syntax error).
 */
export function parseDataFile(path: string, text: string): unknown {
  const bytes = Buffer.byteLength(text)
  if (bytes > OPENAPI_MAX_BYTES)
    throw new OpenApiFileError(`${path} is ${bytes} bytes; an OpenAPI document may have at most ${OPENAPI_MAX_BYTES}`)
  let value: unknown
  if (/\.json$/i.test(path)) {
    try {
      value = JSON.parse(text)
    } catch (error) {
      throw new OpenApiFileError(`${path} is not valid JSON: ${(error as Error).message}`)
    }
  } else {
    try {
      // uniqueKeys off: the yaml package compares every key with every earlier one of its mapping, quadratic in a
      // mapping's size (80,000 keys took 29 s); a repeated key keeps its last value, as JSON.parse does.
      value = parseYaml(text, { maxAliasCount: MAX_ALIAS_COUNT, uniqueKeys: false, prettyErrors: true })
    } catch (error) {
      throw new OpenApiFileError(`${path} is not valid YAML: ${(error as Error).message.split('\n')[0]}`)
    }
  }
  const problem = boundsProblem(value)
  if (problem !== undefined) throw new OpenApiFileError(`${path}: ${problem}`)
  return value
}

/** Whether a parsed file says it is an OpenAPI (or Swagger) document: a mapping with `openapi` or `swagger`. */
export function declaresOpenApi(value: unknown): boolean {
  return isObject(value) && (value.openapi !== undefined || value.swagger !== undefined)
}

/**
 * What is wrong with `value` as an OpenAPI 3.0 or 3.1 document, as a list of sentences naming the place (at most
 * ten); empty when it can be rendered. Checks what the site relies on: the version, `info`, `paths` and its path
 * items and operations, parameters, and that local `$ref`s name something.
 */
export function openApiProblems(value: unknown): string[] {
  const problems: string[] = []
  const add = (problem: string) => problems.length < 10 && problems.push(problem)
  if (!isObject(value)) return ['the document is not a mapping (an object) at the top level']
  if (value.swagger !== undefined && value.openapi === undefined)
    return [`swagger ${JSON.stringify(value.swagger)}: OpenAPI 2.0 (Swagger) is not rendered; convert it to OpenAPI 3`]
  const version = value.openapi
  if (typeof version !== 'string' || !/^3\.[01]\.\d+(?:-[\w.]+)?$/.test(version))
    return [`openapi: ${JSON.stringify(version)} is not an OpenAPI version this site renders (3.0.x or 3.1.x)`]
  const is31 = version.startsWith('3.1')
  if (!isObject(value.info)) add('info: missing, or not a mapping')
  else {
    if (typeof value.info.title !== 'string') add('info.title: missing, or not a string')
    if (typeof value.info.version !== 'string') add('info.version: missing, or not a string')
  }
  if (value.paths === undefined) {
    if (!is31) add('paths: missing (OpenAPI 3.0 requires it)')
    else if (value.components === undefined && value.webhooks === undefined)
      add('paths: missing, and the document has neither components nor webhooks (OpenAPI 3.1 requires one)')
  } else if (!isObject(value.paths)) add('paths: not a mapping')
  else {
    for (const [path, item] of Object.entries(value.paths)) {
      const where = `paths.${path}`
      if (!path.startsWith('/')) add(`${where}: a path must start with "/"`)
      if (!isObject(item)) {
        add(`${where}: not a mapping`)
        continue
      }
      parameterProblems(item.parameters, `${where}.parameters`, add)
      for (const method of METHODS) {
        const operation = item[method]
        if (operation === undefined) continue
        if (!isObject(operation)) add(`${where}.${method}: not a mapping`)
        else {
          if (operation.responses === undefined && !is31) add(`${where}.${method}.responses: missing`)
          else if (operation.responses !== undefined && !isObject(operation.responses))
            add(`${where}.${method}.responses: not a mapping`)
          parameterProblems(operation.parameters, `${where}.${method}.parameters`, add)
        }
      }
    }
  }
  refProblems(value, add)
  return problems
}

/**
 * The document in `text`, parsed and checked.
 *
 * @throws OpenApiFileError naming the problems.
 */
export function readOpenApiFile(path: string, text: string): JsonObject {
  const value = parseDataFile(path, text)
  const problems = openApiProblems(value)
  if (problems.length > 0)
    throw new OpenApiFileError(`${path} is not a usable OpenAPI document: ${problems.join('; ')}`)
  return value as JsonObject
}

function parameterProblems(parameters: unknown, where: string, add: (problem: string) => void): void {
  if (parameters === undefined) return
  if (!Array.isArray(parameters)) {
    add(`${where}: not a list`)
    return
  }
  parameters.forEach((parameter, index) => {
    if (isObject(parameter) && typeof parameter.$ref === 'string') return
    if (!isObject(parameter) || typeof parameter.name !== 'string' || typeof parameter.in !== 'string')
      add(`${where}[${index}]: a parameter needs a string name and in`)
  })
}

/** Local `$ref`s (`#/components/…`) that name nothing; other documents' are left to their readers. */
function refProblems(document: JsonObject, add: (problem: string) => void): void {
  const stack: unknown[] = [document]
  let checked = 0
  while (stack.length > 0 && checked < MAX_CHECKED_REFS) {
    const value = stack.pop()
    if (Array.isArray(value)) stack.push(...value)
    else if (isObject(value)) {
      if (typeof value.$ref === 'string' && value.$ref.startsWith('#')) {
        checked += 1
        if (pointed(document, value.$ref) === undefined) add(`$ref ${JSON.stringify(value.$ref)} names nothing`)
      }
      for (const key in value) if (key !== 'example' && key !== 'examples') stack.push(value[key])
    }
  }
}

/**
 * The value a JSON pointer (`#/components/schemas/Plant`) names in `document`, or undefined: also for a malformed
 * percent-escape (`%ZZ` was a 500 at PUT) and for inherited names (`#/constructor` named Object's constructor).
 */
function pointed(document: JsonObject, ref: string): unknown {
  if (ref === '#') return document
  if (!ref.startsWith('#/')) return undefined
  let target: unknown = document
  for (const part of ref.slice(2).split('/')) {
    let key: string
    try {
      key = decodeURIComponent(part.replace(/~1/g, '/').replace(/~0/g, '~'))
    } catch {
      return undefined
    }
    const container = isObject(target) || Array.isArray(target) ? (target as JsonObject) : undefined
    target = container !== undefined && Object.hasOwn(container, key) ? container[key] : undefined
    if (target === undefined) return undefined
  }
  return target
}

/** Why `value` is too deep or too large to walk, or undefined; iterative, so no input overflows the stack here. */
function boundsProblem(value: unknown): string | undefined {
  const stack: [unknown, number][] = [[value, 1]]
  let nodes = 0
  while (stack.length > 0) {
    const [node, depth] = stack.pop()!
    nodes += 1
    if (nodes > OPENAPI_MAX_NODES) return `the document holds over ${OPENAPI_MAX_NODES} values`
    if (typeof node !== 'object' || node === null) continue
    if (depth > OPENAPI_MAX_DEPTH) return `the document nests deeper than ${OPENAPI_MAX_DEPTH} levels`
    for (const child of Array.isArray(node) ? node : Object.values(node)) stack.push([child, depth + 1])
  }
  return undefined
}
