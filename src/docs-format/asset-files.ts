/**
 * The files of a docs repository beside its pages (images, videos, fonts, OpenAPI documents): which paths name
 * one, what they are served as, and which names carry a content hash. Shared by the asset routes, the site that
 * serves them and `trellis docs push`, which must agree on every rule.
 */

/** The extensions the asset store takes, each with the Content-Type it is served as. */
const TYPES: Record<string, string> = {
  png: 'image/png',
  jpg: 'image/jpeg',
  jpeg: 'image/jpeg',
  gif: 'image/gif',
  webp: 'image/webp',
  avif: 'image/avif',
  svg: 'image/svg+xml',
  ico: 'image/x-icon',
  bmp: 'image/bmp',
  tif: 'image/tiff',
  tiff: 'image/tiff',
  mp4: 'video/mp4',
  webm: 'video/webm',
  mov: 'video/quicktime',
  ogv: 'video/ogg',
  mp3: 'audio/mpeg',
  wav: 'audio/wav',
  m4a: 'audio/mp4',
  ogg: 'audio/ogg',
  woff: 'font/woff',
  woff2: 'font/woff2',
  ttf: 'font/ttf',
  otf: 'font/otf',
  eot: 'application/vnd.ms-fontobject',
  pdf: 'application/pdf',
  json: 'application/json',
  yaml: 'application/yaml',
  yml: 'application/yaml',
  csv: 'text/csv; charset=utf-8',
  txt: 'text/plain; charset=utf-8',
  zip: 'application/zip',
}

/** Extensions whose files may be OpenAPI documents (validated as such when they say `openapi:`). */
export const OPENAPI_EXTENSIONS = ['json', 'yaml', 'yml'] as const

export const ASSET_PATH_MAX_LENGTH = 500

/** Folders of the site that are not the repository's: `/docs/pages/…` is the pages API, the others its own files. */
const RESERVED_FIRST_SEGMENTS = new Set(['pages', '_assets', '_files'])
/** Files the site answers itself at /docs/{name}: a stored one there would never be served. */
const RESERVED_PATHS = new Set(['robots.txt', 'llms.txt', 'llms-full.txt'])

/**
 * Characters a file name may hold: letters and digits of any script, and the punctuation Mintlify repositories use
 * in file names (spaces, `&`, `(`, `+`, `@`…). Not `/` (a separator), `\`, `%`, `?`, `#`, quotes or controls, which
 * would read differently in a URL or in HTML.
 */
const SEGMENT = /^[\p{L}\p{N}._~ ()&+,;=@!$'-]+$/u

/** The lower-case extension of `path`'s last segment, or undefined when it has none. */
export function extensionOf(path: string): string | undefined {
  const name = path.slice(path.lastIndexOf('/') + 1)
  const dot = name.lastIndexOf('.')
  return dot <= 0 ? undefined : name.slice(dot + 1).toLowerCase()
}

/** The Content-Type a stored file is served as, from its extension; undefined for an extension the store refuses. */
export function assetTypeOf(path: string): string | undefined {
  const extension = extensionOf(path)
  return extension !== undefined && Object.hasOwn(TYPES, extension) ? TYPES[extension] : undefined
}

/**
 * Why `path` cannot name a stored file, in one sentence naming the rule; undefined when it can.
 *
 * @example
 * assetPathProblem('images/hero.png') // undefined
 * assetPathProblem('images/../secret.png') // 'file path "images/../secret.png" has a ".." segment; …'
 */
export function assetPathProblem(path: string): string | undefined {
  const quoted = JSON.stringify(path)
  if (path === '') return 'file path is empty; name the file as a page names it, e.g. images/hero.png'
  if (path.length > ASSET_PATH_MAX_LENGTH)
    return `file path is ${path.length} characters long; at most ${ASSET_PATH_MAX_LENGTH} are allowed`
  if (path.startsWith('/')) return `file path ${quoted} starts with "/"; name it relative to the docs root`
  const segments = path.split('/')
  for (const segment of segments) {
    if (segment === '') return `file path ${quoted} has an empty segment`
    if (segment === '.' || segment === '..')
      return `file path ${quoted} has a "${segment}" segment; relative segments are not allowed`
    if (segment.startsWith('.')) return `file path ${quoted} names a hidden file or folder ("${segment}")`
    if (!SEGMENT.test(segment)) {
      const character = [...segment].find((c) => !SEGMENT.test(c))!
      return `file path ${quoted} contains ${JSON.stringify(character)}, which a file name may not hold`
    }
  }
  if (RESERVED_PATHS.has(path)) return `file path ${quoted} is answered by the site itself (/docs/${path})`
  if (RESERVED_FIRST_SEGMENTS.has(segments[0]!))
    return `file path ${quoted} begins with "${segments[0]}", a folder the site keeps for itself`
  if (assetTypeOf(path) === undefined) {
    const extension = extensionOf(path)
    return (
      `file path ${quoted} ${extension === undefined ? 'has no extension' : `ends in .${extension}`}; the ` +
      `store takes ${Object.keys(TYPES)
        .map((each) => `.${each}`)
        .join(', ')}`
    )
  }
  return undefined
}

/**
 * Whether the file name carries a content hash (`logo.3f9a2c1b.svg`, `app-5d41402abc4b.woff2`): such a name
 * changes whenever its content does, so it may be cached for a year without revalidating.
 */
export function isHashedName(path: string): boolean {
  const name = path.slice(path.lastIndexOf('/') + 1)
  return /[.-](?=[0-9a-f]*[a-f])(?=[0-9a-f]*[0-9])[0-9a-f]{8,64}\.[^.]+$/i.test(name)
}
