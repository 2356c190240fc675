/** Naming a place in a JSON value, and the value found there, in messages people read. */

// Character tests instead of regular expressions: field names are built for every issue reported.
function isArrayIndex(token: string): boolean {
  if (token === '' || (token.charCodeAt(0) === 48 && token.length > 1)) return false
  for (let index = 0; index < token.length; index++) if (!isDigit(token.charCodeAt(index))) return false
  return true
}

/** `[A-Za-z_$][A-Za-z0-9_$-]*` */
function isIdentifier(token: string): boolean {
  if (token === '' || !isIdentifierStart(token.charCodeAt(0))) return false
  for (let index = 1; index < token.length; index++) {
    const code = token.charCodeAt(index)
    if (!isIdentifierStart(code) && !isDigit(code) && code !== 45) return false
  }
  return true
}

function isDigit(code: number): boolean {
  return code >= 48 && code <= 57
}

function isIdentifierStart(code: number): boolean {
  return (code >= 65 && code <= 90) || (code >= 97 && code <= 122) || code === 95 || code === 36
}

/**
 * A JSON Pointer written the way people name fields: `/anchors/0/color` → `anchors[0].color`, and the
 * way OpenAI's `param` names them (`messages[1].tool_call_id`); a key that is not an identifier is
 * quoted (`headers["x-y z"]`). The empty pointer, the whole value, is `root`.
 */
export function fieldName(pointer: string, root = ''): string {
  if (pointer === '') return root
  let name = ''
  for (let start = 1, end = 0; start <= pointer.length; start = end + 1) {
    end = pointer.indexOf('/', start)
    if (end === -1) end = pointer.length
    const raw = pointer.slice(start, end)
    const token = raw.includes('~') ? raw.replace(/~1/g, '/').replace(/~0/g, '~') : raw
    if (isArrayIndex(token)) name += `[${token}]`
    else if (isIdentifier(token)) name += name === '' ? token : `.${token}`
    else name += `[${JSON.stringify(token)}]`
  }
  return name
}

/** A short, readable rendering of a JSON value for messages. */
export function describeValue(value: unknown): string {
  if (value === null) return 'null'
  // The lossless body parser hands over integers past 2^53 as bigints.
  if (typeof value === 'bigint') return `the number ${value}`
  if (Array.isArray(value)) return 'an array'
  switch (typeof value) {
    case 'string':
      return `the string ${quote(value)}`
    case 'number':
      return `the number ${value}`
    case 'boolean':
      return `the boolean ${value}`
    case 'object':
      return 'an object'
    default:
      return String(value)
  }
}

/** A string in double quotes, shortened when it is long. */
export function quote(value: string): string {
  return JSON.stringify(value.length > 60 ? `${value.slice(0, 57)}...` : value)
}

/** True for a JSON object (not an array, not null). */
export function isPlainObject(value: unknown): value is Record<string, unknown> {
  return typeof value === 'object' && value !== null && !Array.isArray(value)
}

/** Escapes one JSON Pointer reference token (RFC 6901). */
export function escapePointerToken(token: string): string {
  return token.includes('~') || token.includes('/') ? token.replace(/~/g, '~0').replace(/\//g, '~1') : token
}

/** For each pointer of `focus`, the unescaped tokens of its children in `focus`. */
export function childrenOf(focus: ReadonlySet<string>): Map<string, Set<string>> {
  const children = new Map<string, Set<string>>()
  for (const pointer of focus) {
    if (pointer === '') continue
    const slash = pointer.lastIndexOf('/')
    const parent = pointer.slice(0, slash)
    const token = pointer
      .slice(slash + 1)
      .replace(/~1/g, '/')
      .replace(/~0/g, '~')
    let set = children.get(parent)
    if (set === undefined) children.set(parent, (set = new Set()))
    set.add(token)
  }
  return children
}
