import { t } from 'elysia'
import { IntegerString } from '../../http/int64'

export const SEARCH_QUERY_MAX = 200
export const SEARCH_LIMIT_DEFAULT = 10
export const SEARCH_LIMIT_MAX = 20

export const SearchQuery = t.Object({
  q: t.String({
    minLength: 1,
    maxLength: SEARCH_QUERY_MAX,
    // Something to search for, and no NUL (PostgreSQL text cannot hold it).
    pattern: '^[^\\u0000]*[^\\s\\u0000][^\\u0000]*$',
    description:
      'What to search for, in web search syntax: words (all must occur), "a quoted phrase", `or`, `-word` to ' +
      `exclude; the last word also matches as a prefix while it is typed. 1 to ${SEARCH_QUERY_MAX} characters.`,
    error: `q must be 1 to ${SEARCH_QUERY_MAX} characters, not only white space, without NUL`,
  }),
  limit: t.Optional(
    IntegerString({
      format: 'int32',
      minimum: 1,
      maximum: SEARCH_LIMIT_MAX,
      default: SEARCH_LIMIT_DEFAULT,
      description: `The most results (1 to ${SEARCH_LIMIT_MAX}, default ${SEARCH_LIMIT_DEFAULT})`,
      error: `limit must be an integer from 1 to ${SEARCH_LIMIT_MAX}`,
    }),
  ),
})

const SearchResult = t.Object({
  title: t.String({ description: "The page's title" }),
  heading: t.Optional(t.String({ description: 'The heading of the section that matched; absent for the top' })),
  url: t.String({ description: 'Where the hit is on the site: `/docs/<page>`, with `#<heading id>` for a section' }),
  path: t.String({ description: 'The page path' }),
  anchor: t.Optional(t.String({ description: "The heading's id in the page" })),
  kind: t.Union([t.Literal('page'), t.Literal('operation')], { description: 'operation: an API reference page' }),
  snippet: t.String({
    description: "Text of the section around the match, as HTML: escaped, the query's words in `<mark>` elements",
  }),
})

export const SearchResults = t.Object({
  results: t.Array(SearchResult, { description: 'Best first; at most three sections of one page' }),
})
