import { t, type Static } from 'elysia'
import { Integer } from '../http/integer'
import { IntegerString } from '../http/int64'
import { PAGE_PATH_MAX_LENGTH } from './page-path'

export const PAGES_LIST_DEFAULT = 100
export const PAGES_LIST_MAX = 1000

/** The Content-Types a page may be sent as; its text is read as UTF-8 whatever the charset says. */
export const PAGE_MEDIA_TYPES = ['text/markdown', 'text/x-markdown', 'text/plain'] as const

/** What a page is served as. */
export const MARKDOWN_MEDIA_TYPE = 'text/markdown; charset=utf-8'

const fromFrontMatter = {
  title: t.Optional(t.String({ description: 'the front matter `title`, when it has one' })),
  description: t.Optional(t.String({ description: 'the front matter `description`, when it has one' })),
  sidebarTitle: t.Optional(
    t.String({ description: 'the front matter `sidebarTitle` (the label in the sidebar), when it has one' }),
  ),
  openapi: t.Optional(
    t.String({
      description:
        'the front matter `openapi` reference ("GET /plants" or "openapi.json GET /plants"), when it has one',
    }),
  ),
}

const revisionFields = {
  path: t.String({ description: 'the page path, as docs.json navigation names it (plants/overview)' }),
  revision: Integer({
    format: 'int32',
    minimum: 1,
    description: "the page's revision number: 1 for its first text, then 2, 3…",
  }),
  size: Integer({ format: 'int32', minimum: 0, description: 'size of the text in bytes (UTF-8)' }),
  etag: t.String({ description: 'its entity tag, for If-Match and If-None-Match' }),
  ...fromFrontMatter,
}

/** The answer to a PUT: the revision that is now current. */
export const StoredPageResult = t.Object(
  {
    ...revisionFields,
    createdAt: t.String({ format: 'date-time', description: 'when this revision was stored' }),
    author: t.String({ description: 'owner of the token that stored it' }),
    unchanged: t.Boolean({
      description:
        'true when the text was identical to the newest revision, so nothing was stored and this is that revision',
    }),
  },
  { title: 'DocsPageStored' },
)
export type StoredPageResult = Static<typeof StoredPageResult>

/** One page in the public list. No author: that names a token owner, which the public is not told. */
const PageListItem = t.Object(
  {
    ...revisionFields,
    updatedAt: t.String({ format: 'date-time', description: 'when its newest revision was stored' }),
  },
  { title: 'DocsPageSummary' },
)

export const PageList = t.Object({
  pages: t.Array(PageListItem, { description: 'the newest revision of each page, sorted by path' }),
})

/** One page of the list: a large site has thousands of pages, and one request must not read them all. */
export const PageListQuery = t.Object({
  limit: t.Optional(
    IntegerString({
      format: 'int32',
      minimum: 1,
      maximum: PAGES_LIST_MAX,
      default: PAGES_LIST_DEFAULT,
      description: `The most pages to return (1 to ${PAGES_LIST_MAX}, default ${PAGES_LIST_DEFAULT})`,
      error: `limit must be an integer from 1 to ${PAGES_LIST_MAX}`,
    }),
  ),
  after: t.Optional(
    t.String({
      maxLength: PAGE_PATH_MAX_LENGTH,
      // The page paths' own alphabet: a cursor is a stored path, and a character PostgreSQL cannot hold in
      // text (NUL) would otherwise reach the query and fail it.
      pattern: '^[A-Za-z0-9._/-]*$',
      description:
        'Pages whose path sorts after this one; the `Link: rel="next"` header of the previous page carries it',
      error: `after must be a page path (letters, digits, ".", "_", "-" and "/") of at most ${PAGE_PATH_MAX_LENGTH} characters`,
    }),
  ),
})

export const PageQuery = t.Object({
  revision: t.Optional(
    IntegerString({
      format: 'int32',
      minimum: 1,
      maximum: 2_147_483_647,
      description: 'An older revision of the page, from 1; without it, the newest',
      error: 'revision must be a positive integer',
    }),
  ),
})
