/**
 * `$ref` includes of a docs.json, resolved as Mintlify's CLI resolves them: `{"$ref": "./fr.json"}` is replaced
 * by that file's JSON, read relative to the file that names it; the object's other keys are laid over an
 * included object. Paths may not leave the folder of the docs.json, a file may not include itself (directly
 * or not), and the work is bounded by {@link INCLUDE_LIMITS}.
 */

/** How much one docs.json may include: files, and their total size in characters. */
const INCLUDE_LIMITS = { files: 256, characters: 16 * 1024 * 1024 }

/** Why an include could not be resolved; `file` is the including file, `ref` the path as written. */
export class IncludeError extends Error {
  constructor(
    readonly ref: string,
    readonly file: string,
    reason: string,
  ) {
    super(`${file}: $ref ${JSON.stringify(ref)} ${reason}`)
    this.name = 'IncludeError'
  }
}

/** A reader's rejection for a path that names a file outside the folder after all (through a symbolic link). */
export class IncludeOutside extends Error {
  override name = 'IncludeOutside'
}

/**
 * Reads a file by its path relative to the folder of the docs.json; rejects when it is missing, and with
 * {@link IncludeOutside} when the path leads out of the folder through a symbolic link.
 */
export type ReadInclude = (path: string) => Promise<string>

/** Whether a parsed value holds a `$ref` anywhere: most files have none and keep their text as written. */
export function hasIncludes(value: unknown): boolean {
  if (Array.isArray(value)) return value.some(hasIncludes)
  if (typeof value !== 'object' || value === null) return false
  const object = value as Record<string, unknown>
  return typeof object.$ref === 'string' || Object.values(object).some(hasIncludes)
}

/**
 * The document with every `$ref` replaced by what it names. `file` is the docs.json's own name (relative to
 * its folder), for the messages and for resolving its includes.
 *
 * @throws IncludeError when a file is missing, is not JSON, lies outside the folder, includes itself, or the
 *   limits are passed.
 */
export async function resolveIncludes(value: unknown, file: string, read: ReadInclude): Promise<unknown> {
  const budget = { files: 0, characters: 0 }
  const resolve = async (node: unknown, from: string, chain: string[]): Promise<unknown> => {
    if (Array.isArray(node)) {
      const items: unknown[] = []
      for (const item of node) items.push(await resolve(item, from, chain))
      return items
    }
    if (typeof node !== 'object' || node === null) return node
    const object = node as Record<string, unknown>
    const ref = object.$ref
    const result: Record<string, unknown> = {}
    if (typeof ref === 'string') {
      const path = joinRelative(from, ref)
      if (path === undefined) throw new IncludeError(ref, from, 'points outside the folder of docs.json')
      if (chain.includes(path)) throw new IncludeError(ref, from, `includes itself: ${[...chain, path].join(' → ')}`)
      if (++budget.files > INCLUDE_LIMITS.files)
        throw new IncludeError(ref, from, `is one include too many (at most ${INCLUDE_LIMITS.files})`)
      let text: string
      try {
        text = await read(path)
      } catch (error) {
        if (error instanceof IncludeOutside)
          throw new IncludeError(ref, from, `names ${path}, a symbolic link to a file outside the folder of docs.json`)
        throw new IncludeError(ref, from, `names ${path}, which cannot be read`)
      }
      budget.characters += text.length
      if (budget.characters > INCLUDE_LIMITS.characters)
        throw new IncludeError(ref, from, `takes the includes past ${INCLUDE_LIMITS.characters} characters`)
      let parsed: unknown
      try {
        parsed = JSON.parse(text)
      } catch (error) {
        throw new IncludeError(ref, from, `names ${path}, which is not JSON: ${(error as Error).message}`)
      }
      const included = await resolve(parsed, path, [...chain, path])
      if (typeof included !== 'object' || included === null || Array.isArray(included)) return included
      Object.assign(result, included)
    }
    for (const [key, child] of Object.entries(object)) {
      if (key !== '$ref' || typeof ref !== 'string') result[key] = await resolve(child, from, chain)
    }
    return result
  }
  return resolve(value, file, [file])
}

/** `ref` resolved against the folder of `from`, with `/` separators; undefined when it leaves the root. */
function joinRelative(from: string, ref: string): string | undefined {
  if (ref.startsWith('/') || ref.includes('\\') || /^[A-Za-z][A-Za-z0-9+.-]*:/.test(ref)) return undefined
  const segments = from.split('/').slice(0, -1)
  for (const segment of ref.split('/')) {
    if (segment === '' || segment === '.') continue
    if (segment === '..') {
      if (segments.length === 0) return undefined
      segments.pop()
    } else segments.push(segment)
  }
  return segments.join('/')
}
