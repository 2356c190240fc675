import { WRITER_LOCK_TIMEOUT_MS, isLockTimeout } from '../db/advisory-lock'
import { ifMatchAccepts, ifNoneMatchHits, shortDigest } from '../http/entity-tags'
import { unstorable } from '../db/storable-text'
import { type FrontMatter, FrontMatterError, parseFrontMatter } from '../docs-format/front-matter'
import { pagePathProblem } from './page-path'
import type { DocsPagesStore, PageRevision, PageSummary } from './store'

export type { PageSummary } from './store'

/** A stored revision of a page, its text split: `body` is what follows the front matter. */
export type StoredPage = PageRevision & { body: string; frontMatter: FrontMatter }

/** What a PUT asks for: `ifMatch` and `ifNoneMatch` are the request's headers, as sent. */
export type PagePut = { path: string; text: string; author: string; ifMatch?: string; ifNoneMatch?: string }

/** The path breaks a rule of page paths; the message names it. */
export class InvalidPagePath extends Error {
  override name = 'InvalidPagePath'
}

/**
 * Why a page cannot be shown by the site (its HTML would pass DOCS_MAX_PAGE_HTML), or undefined; asked with the body
 * (the text after its front matter) before a page is stored. app.ts passes the site's answer (the pages feature
 * renders nothing itself).
 */
export type PageCheck = (path: string, body: string) => Promise<string | undefined>

/** The site could not show the page as sent; the message says why. */
export class PageNotRenderable extends Error {
  override name = 'PageNotRenderable'
}

/** The text cannot be stored as sent (the NUL character). */
export class UnstorablePage extends Error {
  override name = 'UnstorablePage'
}

/**
 * A precondition of the PUT does not hold: `If-Match` names a version that is not current (or the
 * page does not exist), or `If-None-Match: *` meets a page that does. `current` is the page's ETag.
 */
export class PagePreconditionFailed extends Error {
  override name = 'PagePreconditionFailed'
  constructor(
    message: string,
    readonly current: string | undefined,
  ) {
    super(message)
  }
}

/**
 * Too many writers of this page ahead of this one: it waited {@link WRITER_LOCK_TIMEOUT_MS} for its turn. Worth
 * retrying.
 */
export class PageWritersBusy extends Error {
  override name = 'PageWritersBusy'
  constructor(path: string) {
    super(
      `page ${path} is being written by others; this write waited ${WRITER_LOCK_TIMEOUT_MS / 1000} s for its turn. Retry shortly`,
    )
  }
}

/** A page's entity tag: strong, a digest of its text exactly as stored. */
async function pageEtag(text: string): Promise<string> {
  return `"${await shortDigest(text)}"`
}

/**
 * The documentation site's Markdown pages, without HTTP: reading a page's newest or an older revision,
 * the newest of every page, and storing a new revision (guarded by optional preconditions). Revisions
 * are appended only; nothing is ever updated or deleted.
 */
export class DocsPagesService {
  constructor(
    private readonly store: DocsPagesStore,
    private readonly clock: () => Date,
    private readonly check?: PageCheck,
    /** Told of each new revision once it is stored (the site's search index); awaited, so a PUT's answer follows it. */
    private readonly onStored?: (page: PageRevision) => Promise<void>,
  ) {}

  /** The newest revision of the page, or undefined when it was never written. */
  async current(path: string): Promise<StoredPage | undefined> {
    return withBody(await this.store.latest(path))
  }

  /** Revision `n` of the page, or undefined when there is no such revision. */
  async revision(path: string, n: number): Promise<StoredPage | undefined> {
    return withBody(await this.store.get(path, n))
  }

  /**
   * The newest revision (or revision `n`) as stored, its text not split: what the raw GET and the site read,
   * so a public read does not parse the front matter it only passes on.
   */
  stored(path: string, n?: number): Promise<PageRevision | undefined> {
    return n === undefined ? this.store.latest(path) : this.store.get(path, n)
  }

  /** The newest revision of every page, by path, without texts; one query. */
  async summaries(): Promise<Map<string, PageSummary>> {
    return new Map((await this.store.newest()).map((summary) => [summary.path, summary]))
  }

  /** A page of `limit` pages sorted by path after `after`, and the path to continue after when more exist. */
  async list(limit: number, after?: string): Promise<{ pages: PageSummary[]; next?: string }> {
    // One more than asked tells whether another page exists without a count.
    const rows = await this.store.newest(limit + 1, after)
    const pages = rows.slice(0, limit)
    return { pages, next: rows.length > limit ? pages.at(-1)!.path : undefined }
  }

  /** A number that grows whenever any page gets a revision (0 before the first): a cheap "has anything changed?". */
  generation(): Promise<number> {
    return this.store.generation()
  }

  /**
   * Stores `text` as the page's next revision. Writers of one page take turns (see
   * DocsPagesStore.appendNext), so a write without `ifMatch` always lands on top of whatever is newest.
   * A text identical to the newest revision's stores nothing and answers that revision (`unchanged`),
   * so pushing a whole unchanged folder again adds no history.
   *
   * @throws InvalidPagePath; FrontMatterError when the front matter is unusable; UnstorablePage; PageNotRenderable;
   *   PagePreconditionFailed when `ifMatch` or `ifNoneMatch` does not hold when this writer's turn comes;
   *   PageWritersBusy when the turn did not come in time.
   */
  async put(input: PagePut): Promise<{ page: StoredPage; created: boolean; unchanged: boolean }> {
    const problem = pagePathProblem(input.path)
    if (problem !== undefined) throw new InvalidPagePath(problem)
    const why = unstorable(input.text)
    if (why) throw new UnstorablePage(`the page text must not contain ${why}`)
    const { data, body } = parseFrontMatter(input.text)
    const unrenderable = await this.check?.(input.path, body)
    if (unrenderable !== undefined) throw new PageNotRenderable(unrenderable)
    const etag = await pageEtag(input.text)
    const size = new TextEncoder().encode(input.text).byteLength
    try {
      const { stored, created, unchanged } = await this.store.appendNext(input.path, async (latest) => {
        checkPreconditions(input, latest)
        if (latest?.etag === etag && latest.source === input.text) return undefined
        return {
          source: input.text,
          etag,
          ...(data.title === undefined ? {} : { title: data.title }),
          ...(data.description === undefined ? {} : { description: data.description }),
          ...(data.sidebarTitle === undefined ? {} : { sidebarTitle: data.sidebarTitle }),
          ...(data.openapi === undefined ? {} : { openapi: data.openapi }),
          author: input.author,
          size,
          createdAt: this.clock().toISOString(),
        }
      })
      if (!unchanged) await this.onStored?.(stored)
      // An unchanged page is the stored revision, whose text is this one: the split above is its split.
      return { page: { ...stored, body, frontMatter: data }, created, unchanged }
    } catch (error) {
      if (isLockTimeout(error)) throw new PageWritersBusy(input.path)
      throw error
    }
  }
}

function checkPreconditions(input: PagePut, latest: PageRevision | undefined): void {
  if (input.ifNoneMatch !== undefined && latest !== undefined && ifNoneMatchHits(input.ifNoneMatch, latest.etag)) {
    const why =
      input.ifNoneMatch.trim() === '*'
        ? 'already exists, and If-None-Match: * only creates'
        : 'is already at the version If-None-Match names'
    throw new PagePreconditionFailed(`page ${input.path} ${why}; its current ETag is ${latest.etag}`, latest.etag)
  }
  if (input.ifMatch === undefined) return
  if (latest === undefined)
    throw new PagePreconditionFailed(
      `page ${input.path} does not exist, so If-Match cannot match; leave If-Match out to create it`,
      undefined,
    )
  if (!ifMatchAccepts(input.ifMatch, latest.etag)) {
    throw new PagePreconditionFailed(
      `page ${input.path} has changed since that version was read; the current ETag is ${latest.etag}. Fetch it, ` +
        `merge, and retry with If-Match: ${latest.etag}`,
      latest.etag,
    )
  }
}

/** The revision with its text split into front matter and body. */
function withBody(revision: PageRevision | undefined): StoredPage | undefined {
  if (revision === undefined) return undefined
  try {
    const { data, body } = parseFrontMatter(revision.source)
    return { ...revision, body, frontMatter: data }
  } catch (error) {
    // Every stored text passed when it was written; should the rules ever tighten, a page stored
    // before is still served (its title and description are in their own columns), not an error.
    if (!(error instanceof FrontMatterError)) throw error
    return { ...revision, body: revision.source, frontMatter: {} }
  }
}
