import { describe, expect, setDefaultTimeout, test } from 'bun:test'
import { FrontMatterError, parseFrontMatter, parseOperationRef } from '../../src/docs-format/front-matter'
import { pagePathProblem } from '../../src/docs-pages/page-path'

// bun applies the preload's default timeout to the first file only (tests/setup.ts).
setDefaultTimeout(30_000)

describe('parseFrontMatter: what is front matter and what is body', () => {
  const ROWS: [string, string, Record<string, unknown>, string][] = [
    ['no block: all of it is the body', '# Plants\n\nText.\n', {}, '# Plants\n\nText.\n'],
    ['an empty text', '', {}, ''],
    [
      'the four known keys and others, kept as written',
      '---\ntitle: Plants\ndescription: All about plants\nsidebarTitle: Plants\nopenapi: GET /plants\nicon: leaf\nmode: wide\n---\n# Plants\n',
      {
        title: 'Plants',
        description: 'All about plants',
        sidebarTitle: 'Plants',
        openapi: 'GET /plants',
        icon: 'leaf',
        mode: 'wide',
      },
      '# Plants\n',
    ],
    ['an empty block', '---\n---\nBody\n', {}, 'Body\n'],
    ['a block of comments only', '---\n# nothing yet\n---\nBody\n', {}, 'Body\n'],
    [
      'CRLF line ends; the body keeps its own',
      '---\r\ntitle: Plants\r\n---\r\n# Plants\r\n',
      { title: 'Plants' },
      '# Plants\r\n',
    ],
    ['the closing line at the very end', '---\ntitle: Only\n---', { title: 'Only' }, ''],
    ['blanks after the dashes', '---  \ntitle: Plants\n--- \t\nBody', { title: 'Plants' }, 'Body'],
    ['a byte-order mark before the block', '\uFEFF---\ntitle: Plants\n---\nBody', { title: 'Plants' }, 'Body'],
    [
      'quoted strings that look like other things',
      '---\ntitle: "123"\ndescription: \'true\'\n---\n',
      { title: '123', description: 'true' },
      '',
    ],
    [
      'YAML 1.2: yes and no are strings, dates are not parsed',
      '---\ntitle: yes\nupdated: 2024-01-01\n---\n',
      { title: 'yes', updated: '2024-01-01' },
      '',
    ],
    [
      'unknown keys are not checked',
      '---\ntag: [a, b]\nhidden: true\ncount: 3\n---\n',
      { tag: ['a', 'b'], hidden: true, count: 3 },
      '',
    ],
    [
      'a thematic break later in the body is body',
      '---\ntitle: A\n---\nOne\n---\nTwo\n',
      { title: 'A' },
      'One\n---\nTwo\n',
    ],
    ['dashes not on the first line are body', '\n---\ntitle: A\n---\n', {}, '\n---\ntitle: A\n---\n'],
    ['four dashes do not open a block', '----\ntitle: A\n----\n', {}, '----\ntitle: A\n----\n'],
    ['a few aliases are fine', '---\nbase: &b Plants\ntitle: *b\n---\n', { base: 'Plants', title: 'Plants' }, ''],
    // js-yaml, which Mintlify reads front matter with, takes quoted strings continued on lines indented no deeper
    // than their key; so do we (issue #27 §3).
    [
      'a double-quoted string continued at column 0',
      '---\ndescription: "Line one\nline two, \\"quoted\\""\ntitle: T\n---\nBody',
      { description: 'Line one line two, "quoted"', title: 'T' },
      'Body',
    ],
    [
      "a single-quoted string with '' continued at column 0",
      "---\ntitle: 'It''s\nlong'\n---\n",
      { title: "It's long" },
      '',
    ],
    [
      'a blank line inside a quoted string is a line break',
      '---\ndescription: "Para one\n\nPara two"\n---\n',
      { description: 'Para one\nPara two' },
      '',
    ],
    [
      'nested keys continued the same way',
      '---\nseo:\n  description: "one\n  two"\n---\n',
      { seo: { description: 'one two' } },
      '',
    ],
  ]
  test.each(ROWS)('%s', (_case, text, data, body) => {
    expect(parseFrontMatter(text)).toEqual({ data, body })
  })

  test('a key named __proto__ is an ordinary key, not a prototype', () => {
    const { data } = parseFrontMatter('---\n__proto__:\n  polluted: true\n---\n')
    expect(Object.getPrototypeOf(data)).toBe(Object.prototype)
    expect(({} as { polluted?: boolean }).polluted).toBeUndefined()
  })
})

describe('parseFrontMatter: unusable front matter names the line (of the whole file) and the field', () => {
  const bomb = [
    '---',
    'a: &a [x, x, x, x, x, x, x, x, x]',
    'b: &b [*a, *a, *a, *a, *a, *a, *a, *a, *a]',
    'c: &c [*b, *b, *b, *b, *b, *b, *b, *b, *b]',
    'd: [*c, *c, *c, *c, *c, *c, *c, *c, *c]',
    '---',
    '',
  ].join('\n')
  const ROWS: [string, string, string][] = [
    ['title is a number', '---\ntitle: 5\n---\n', 'front matter line 2: title: expected a string, got a number (5)'],
    [
      'description is a list, on line 3',
      '---\ntitle: A\ndescription:\n  - one\n  - two\n---\n',
      'front matter line 3: description: expected a string, got a list',
    ],
    [
      'sidebarTitle is a mapping',
      '---\nsidebarTitle: {short: A}\n---\n',
      'front matter line 2: sidebarTitle: expected a string, got a mapping',
    ],
    [
      'title is empty (null)',
      '---\ntitle:\n---\n',
      'front matter line 2: title: expected a string, got nothing (null)',
    ],
    [
      'title is a boolean',
      '---\n\ntitle: true\n---\n',
      'front matter line 3: title: expected a string, got a boolean (true)',
    ],
    [
      'openapi is an alias of a list',
      '---\nx: &l [1]\nopenapi: *l\n---\n',
      'front matter line 3: openapi: expected a string, got a list',
    ],
    [
      'openapi with an unknown method',
      '---\nopenapi: FETCH /plants\n---\n',
      'front matter line 2: openapi: expected "METHOD /path" or "<document> METHOD /path" with METHOD one of GET, POST, PUT, PATCH, DELETE, HEAD, OPTIONS, TRACE, got "FETCH /plants"',
    ],
    ['openapi without a path', '---\nopenapi: GET\n---\n', 'front matter line 2: openapi: expected "METHOD /path"'],
    [
      'openapi with a path not starting with /',
      '---\nopenapi: GET plants\n---\n',
      'front matter line 2: openapi: expected "METHOD /path"',
    ],
    [
      'title with a NUL escape',
      '---\ntitle: "a\\0b"\n---\n',
      'front matter line 2: title: must not contain the NUL character (U+0000)',
    ],
    [
      'title with a lone surrogate escape',
      '---\ntitle: "\\uD800"\n---\n',
      'front matter line 2: title: must not contain a lone surrogate (U+D800)',
    ],
    [
      'a list, not a mapping',
      '---\n- title\n- description\n---\n',
      'front matter line 2: expected a mapping of keys to values (title: …), got a list',
    ],
    [
      'a lone string, not a mapping',
      '---\n\nJust a sentence\n---\n',
      'front matter line 3: expected a mapping of keys to values (title: …), got a string',
    ],
    [
      'never closed',
      '---\ntitle: A\n# Body\n',
      'front matter line 1: the block opened by "---" on line 1 is never closed by a "---" line',
    ],
    [
      'a list never closed (YAML reports it where the block ends)',
      '---\ntitle: A\ndescription: [unclosed\n---\n',
      'front matter line 4: invalid YAML: Flow sequence in block collection must be sufficiently indented and end with a ]',
    ],
    [
      'a mapping where a value was expected',
      '---\ntitle: a: b\n---\n',
      'front matter line 2: invalid YAML: Nested mappings are not allowed in compact mappings',
    ],
    [
      'a key given twice',
      '---\ntitle: A\ntitle: B\n---\n',
      'front matter line 3: invalid YAML: Map keys must be unique',
    ],
    [
      'a tag beyond the core schema',
      '---\ntitle: A\nicon: !!binary aGk=\n---\n',
      'front matter line 3: invalid YAML: ',
    ],
    ['a custom tag', '---\nicon: !leaf x\n---\n', 'front matter line 2: invalid YAML: '],
    [
      'CRLF line ends count lines the same',
      '---\r\n\r\ntitle: 5\r\n---\r\n',
      'front matter line 3: title: expected a string',
    ],
    ['an alias bomb', bomb, 'front matter line 2: too many YAML aliases'],
  ]
  test.each(ROWS)('%s', (_case, text, message) => {
    let thrown: unknown
    try {
      parseFrontMatter(text)
    } catch (error) {
      thrown = error
    }
    expect(thrown).toBeInstanceOf(FrontMatterError)
    expect((thrown as Error).message).toStartWith(message)
  })

  test('the error carries the line and field apart from its message', () => {
    expect(() => parseFrontMatter('---\n\n\ndescription: 1\n---\n')).toThrow(
      expect.objectContaining({ line: 4, field: 'description' }),
    )
  })
})

describe('parseOperationRef', () => {
  const ROWS: [string, ReturnType<typeof parseOperationRef>][] = [
    ['GET /plants', { method: 'GET', path: '/plants' }],
    ['get /plants/{id}', { method: 'GET', path: '/plants/{id}' }],
    ['  Delete   /plants/{id}  ', { method: 'DELETE', path: '/plants/{id}' }],
    ['openapi.json POST /plants', { document: 'openapi.json', method: 'POST', path: '/plants' }],
    ['/api/openapi.yaml patch /x', { document: '/api/openapi.yaml', method: 'PATCH', path: '/x' }],
    ['my spec.json TRACE /', { document: 'my spec.json', method: 'TRACE', path: '/' }],
    ['HEAD /', { method: 'HEAD', path: '/' }],
    ['options /x', { method: 'OPTIONS', path: '/x' }],
    ['PUT /x', { method: 'PUT', path: '/x' }],
    ['FETCH /plants', undefined],
    ['GET plants', undefined],
    ['GET', undefined],
    ['/plants', undefined],
    ['', undefined],
    ['openapi.json /plants GET', undefined],
  ]
  test.each(ROWS)('%p', (ref, parsed) => {
    expect(parseOperationRef(ref)).toEqual(parsed)
  })

  test('a long value is read in linear time', () => {
    const long = `${'a '.repeat(200_000)}x`
    const started = performance.now()
    expect(parseOperationRef(long)).toBeUndefined()
    expect(performance.now() - started).toBeLessThan(200)
  })
})

describe('pagePathProblem', () => {
  test.each([
    'intro',
    'plants/overview',
    'api-reference/plants/get_plant',
    'v1.2/notes',
    'a/b/c/d/e',
    'x'.repeat(200),
    'Pages/x',
    'my-pages',
    // As Mintlify publishes them (issue #27 §3): the site links them percent-encoded.
    'guides/Q&A',
    'migrate/v2: what changed',
    'getting started/first steps',
    'café/crème',
    'snippets/badge.jsx',
  ])('%p is a page path', (path) => {
    expect(pagePathProblem(path)).toBeUndefined()
  })

  const ROWS: [string, string, string][] = [
    ['empty', '', 'page path is empty'],
    ['201 characters', 'x'.repeat(201), 'page path is 201 characters long; at most 200 are allowed'],
    ['a leading slash', '/plants', 'starts with "/"'],
    ['a trailing slash', 'plants/', 'ends with "/"'],
    [
      'a .md extension',
      'plants/overview.md',
      'ends in .md; name the page without its extension, as docs.json navigation does (plants/overview)',
    ],
    ['a .MDX extension', 'intro.MDX', 'ends in .MDX'],
    ['an empty segment', 'plants//overview', 'has an empty segment ("//")'],
    ['a . segment', 'plants/./overview', 'has a "." segment'],
    ['a .. segment', '../secrets', 'has a ".." segment'],
    ['a segment ending in a space', 'plants /overview', 'starts or ends with blank space'],
    ['a tab', 'a\tb', 'contains "\\t"'],
    ['a hash', 'a#b', 'contains "#"'],
    ['a percent sign', 'a%20b', 'contains "%"'],
    ['a backslash', 'plants\\overview', 'contains "\\\\"'],
    ['a NUL', 'a\u0000b', 'contains "\\u0000"'],
    ['a query mark', 'a?b', 'contains "?"'],
    ['the reserved first segment', 'pages/intro', 'begins with the segment "pages", which is reserved'],
    ['the reserved segment alone', 'pages', 'begins with the segment "pages"'],
    ["the site's stylesheets and scripts", '_assets/site.css', 'begins with the segment "_assets", which is reserved'],
    ["the site's built-in images", '_files/logo/light.svg', 'begins with the segment "_files", which is reserved'],
  ]
  test.each(ROWS)('%s: %p is refused', (_case, path, message) => {
    expect(pagePathProblem(path)).toContain(message)
  })
})
