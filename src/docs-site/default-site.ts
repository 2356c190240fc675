import authentication from './default-pages/authentication.md' with { type: 'text' }
import chatOverview from './default-pages/chat-overview.md' with { type: 'text' }
import chatStreaming from './default-pages/chat-streaming.md' with { type: 'text' }
import chatToolCalls from './default-pages/chat-tool-calls.md' with { type: 'text' }
import docsOverview from './default-pages/docs-config-overview.md' with { type: 'text' }
import docsRevisions from './default-pages/docs-config-revisions.md' with { type: 'text' }
import docsSite from './default-pages/docs-config-site.md' with { type: 'text' }
import docsValidate from './default-pages/docs-config-validate.md' with { type: 'text' }
import consoleGuide from './default-pages/console.md' with { type: 'text' }
import errors from './default-pages/errors.md' with { type: 'text' }
import introduction from './default-pages/introduction.md' with { type: 'text' }
import plantsOverview from './default-pages/plants-overview.md' with { type: 'text' }
import testing from './default-pages/testing.md' with { type: 'text' }
import { operationsOf, type OpenApiDocument } from './openapi-schema'

/**
 * The pages of Trellis's own site, shown while docs.json is the built-in default (revision 0) and a page has
 * no stored text: the guides below, and one API reference page per operation of this server's /openapi.json.
 * Once a docs.json is stored, the site is the author's alone and none of these appear.
 */
const GUIDES = new Map<string, string>([
  ['introduction', introduction],
  ['authentication', authentication],
  ['errors', errors],
  ['plants/overview', plantsOverview],
  ['chat/overview', chatOverview],
  ['chat/streaming', chatStreaming],
  ['chat/tool-calls', chatToolCalls],
  ['docs-config/overview', docsOverview],
  ['docs-config/validate', docsValidate],
  ['docs-config/revisions', docsRevisions],
  ['docs-config/site', docsSite],
  ['testing', testing],
  ['console', consoleGuide],
])

/** The API reference page path of an operation: `api-reference/<tag>/<method>-<path words>`. */
function apiPagePath(operation: { method: string; path: string; tags: string[] }): string {
  const tag = slug(operation.tags[0] ?? 'other')
  const words = slug(operation.path.replace(/[{}]/g, ''))
  return `api-reference/${tag}/${operation.method.toLowerCase()}${words === '' ? '' : `-${words}`}`
}

/** The built-in pages' texts by path, API pages included, for `document` (this server's own). */
export function defaultPages(document: OpenApiDocument): Map<string, string> {
  const pages = new Map(GUIDES)
  for (const operation of operationsOf(document)) {
    const title = JSON.stringify(operation.summary ?? `${operation.method} ${operation.path}`)
    pages.set(apiPagePath(operation), `---\ntitle: ${title}\nopenapi: "${operation.method} ${operation.path}"\n---\n`)
  }
  return pages
}

function slug(text: string): string {
  return text
    .toLowerCase()
    .replace(/[^a-z0-9]+/g, '-')
    .replace(/^-+|-+$/g, '')
}
