import { Elysia } from 'elysia'
import { ErrorBody, errorStatuses, jsonErrors } from '../../http/json-errors'
import type { Logger } from '../../telemetry/logger'
import { SEARCH_LIMIT_DEFAULT, SEARCH_LIMIT_MAX, SEARCH_QUERY_MAX, SearchQuery, SearchResults } from './model'
import type { SearchService } from './service'

/**
 * `GET /docs/search?q=`: the site's full-text search over the titles, headings and text of every page and API
 * operation it shows. Public, like the site.
 */
export const docsSearchPlugin = (deps: { service: SearchService; logger: Logger }) =>
  new Elysia({ name: 'docs-search' }).onError(jsonErrors(deps.logger)).get(
    '/docs/search',
    async ({ query, set }) => {
      const limit = query.limit === undefined ? SEARCH_LIMIT_DEFAULT : Number(query.limit)
      // Pages change with any push; a result may be cached briefly, never for long.
      set.headers['cache-control'] = 'public, max-age=10'
      return { results: await deps.service.search(query.q, limit) } as typeof SearchResults.static
    },
    {
      query: SearchQuery,
      response: { 200: SearchResults, ...errorStatuses(ErrorBody, 400, 500, 503) },
      detail: {
        summary: 'Search the documentation site',
        description:
          'Public. Full-text search (PostgreSQL) over the titles, headings and text of every page of the site, and ' +
          'of every API operation it documents, ranked: a title weighs more than a heading, a heading more than ' +
          'text. Each result is a page or one of its sections (`url` ends in `#<heading id>`), with a snippet of ' +
          `its text, the matched words highlighted. \`q\` is 1 to ${SEARCH_QUERY_MAX} characters; at most ` +
          `${SEARCH_LIMIT_MAX} results.`,
        tags: ['docs site'],
        responses: {
          200: { description: 'The results, best first (none is an empty list).' },
          400: { description: '`q` is missing, blank or too long, or `limit` is not an integer from 1 to 20.' },
        },
      },
    },
  )
