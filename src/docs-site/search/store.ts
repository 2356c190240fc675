import { and, eq, inArray, sql } from 'drizzle-orm'
import { awaitWriterTurn } from '../../db/advisory-lock'
import type { Database } from '../../db/connect'
import { rowsOf } from '../../db/migrate'
import { docsSearchSections } from '../../db/schema'
import type { Section } from './sections'

/**
 * Stored pages, Trellis's own (shown while docs.json is the built-in default), or the pages docs.json's navigation
 * generates from OpenAPI documents (shown where no stored or shown built-in page has their path).
 */
export type Origin = 'page' | 'built-in' | 'generated'

/** A page's rows as one write: its sections in order, the first being its top. */
export type IndexedPage = {
  path: string
  revision: number
  kind: 'page' | 'operation'
  title: string
  sections: Section[]
}

/** One hit: a section, its rank, and its text with the query's words between SNIPPET_MARK and SNIPPET_END. */
export type SectionHit = {
  path: string
  anchor: string
  kind: string
  pageTitle: string
  heading: string
  rank: number
  snippet: string
}

/** Around a matched word in a snippet: characters no page text holds (they are removed from it before). */
export const SNIPPET_MARK = '\uE000'
export const SNIPPET_END = '\uE001'
/**
 * `<` and `>` of a section's text, as stored: PostgreSQL's text parser reads `<script>…</script>` in a text as markup
 * and drops it from the vector and the snippet, so code quoted on a page would not be found. They are put back
 * (escaped) when a snippet is answered.
 */
export const SNIPPET_LT = '\uE002'
export const SNIPPET_GT = '\uE003'
/** ts_headline reads the whole text it is given; only this much of a section is, so a snippet costs little. */
const HEADLINE_TEXT_MAX = 1_500
/**
 * What one search ranks at most: the sections whose title or heading matches, and those whose text does, up to this
 * many of each. A word in most of a large site's sections would otherwise have every one of them read and ranked;
 * past the bound, a title or heading match still wins, and texts are ranked among the first this many found.
 */
const CANDIDATES_MAX = 100
/** How many sections of one page a search answers at most, so one long page does not fill the results. */
const HITS_PER_PAGE = 3

const HEADLINE_OPTIONS = `StartSel=${SNIPPET_MARK}, StopSel=${SNIPPET_END}, MaxWords=28, MinWords=12, ShortWord=2, MaxFragments=2, FragmentDelimiter=" … "`

/** Paths per DELETE of {@link SearchIndexStore.removeAll}: well under any bound on a statement's parameters. */
const REMOVE_CHUNK = 500

/** "trls": the first key of a page's index writers' lock (the second is the path's hash); in no other use. */
const INDEX_LOCK_NAMESPACE = 0x7472_6c73

/**
 * The search index table: a page's sections replaced as one, and searched with PostgreSQL full-text search
 * (`websearch_to_tsquery`, `ts_rank`, `ts_headline`). Works the same on PostgreSQL and PGlite.
 */
export class SearchIndexStore {
  constructor(private readonly db: Database) {}

  /**
   * Replaces the page's rows with `page`'s, unless rows of a newer revision are there already: writers of one page
   * take turns, so two replicas indexing revisions 5 and 6 leave 6 whatever order they commit in.
   */
  async replace(origin: Origin, page: IndexedPage): Promise<void> {
    await this.db.transaction(async (tx) => {
      await awaitWriterTurn(tx, INDEX_LOCK_NAMESPACE, pathKey(`${origin}\n${page.path}`))
      const [held] = await tx
        .select({ revision: docsSearchSections.revision })
        .from(docsSearchSections)
        .where(and(pageRows(origin, page.path), eq(docsSearchSections.position, 0)))
      if (origin === 'page' && held !== undefined && held.revision > page.revision) return
      await tx.delete(docsSearchSections).where(pageRows(origin, page.path))
      await tx.insert(docsSearchSections).values(
        page.sections.map((section, position) => ({
          origin,
          path: page.path,
          position,
          revision: page.revision,
          kind: page.kind,
          anchor: section.anchor,
          pageTitle: clean(page.title),
          heading: clean(section.heading),
          body: clean(section.body).replaceAll('<', SNIPPET_LT).replaceAll('>', SNIPPET_GT),
        })),
      )
    })
  }

  /**
   * Refreshes the planner's statistics of the table. PostgreSQL's autovacuum does it by itself; PGlite has none, and
   * without statistics the planner scans every row for a word no section holds.
   */
  async analyze(): Promise<void> {
    await this.db.execute(sql`ANALYZE docs_search_sections`)
  }

  /** Removes a page's rows. */
  async remove(origin: Origin, path: string): Promise<void> {
    await this.db.delete(docsSearchSections).where(pageRows(origin, path))
  }

  /** Removes the rows of many pages, a few hundred paths per statement. */
  async removeAll(origin: Origin, paths: string[]): Promise<void> {
    for (let start = 0; start < paths.length; start += REMOVE_CHUNK)
      await this.db
        .delete(docsSearchSections)
        .where(
          and(
            eq(docsSearchSections.origin, origin),
            inArray(docsSearchSections.path, paths.slice(start, start + REMOVE_CHUNK)),
          ),
        )
  }

  /** The paths of stored pages indexed as API operations (their front matter names one). */
  async operationPages(): Promise<string[]> {
    const rows = await this.db
      .select({ path: docsSearchSections.path })
      .from(docsSearchSections)
      .where(
        and(
          eq(docsSearchSections.origin, 'page'),
          eq(docsSearchSections.position, 0),
          eq(docsSearchSections.kind, 'operation'),
        ),
      )
    return rows.map((row) => row.path)
  }

  /** The revision each indexed page of `origin` was indexed at, by path. */
  async revisions(origin: Origin): Promise<Map<string, number>> {
    const rows = await this.db
      .select({ path: docsSearchSections.path, revision: docsSearchSections.revision })
      .from(docsSearchSections)
      .where(and(eq(docsSearchSections.origin, origin), eq(docsSearchSections.position, 0)))
    return new Map(rows.map((row) => [row.path, row.revision]))
  }

  /**
   * The best `limit` sections for `query` (websearch syntax: words, "quoted phrases", or, -not), a prefix match of
   * `prefix` (the word being typed) also counting; at most {@link HITS_PER_PAGE} per page, ranked among at most
   * twice {@link CANDIDATES_MAX} candidates. Built-in pages count only with `builtIn`; a page counts only where the
   * site shows it (see `visible`).
   */
  async search(query: string, prefix: string | undefined, limit: number, builtIn: boolean): Promise<SectionHit[]> {
    const words = sql`websearch_to_tsquery('english', ${query})`
    // With a prefix: the words as typed, or the words before the last one and the last one as a prefix.
    const tsquery =
      prefix === undefined
        ? words
        : sql`(${words} || (websearch_to_tsquery('english', ${withoutLastWord(query)}) && to_tsquery('english', ${`${prefix}:*`})))`
    // The page the site shows at a path: a stored one, else a built-in one (while shown), else a generated one.
    const visible = sql`(s.origin = 'page'
      OR (s.origin = 'built-in' AND ${builtIn} AND NOT EXISTS (
        SELECT 1 FROM docs_search_sections p WHERE p.origin = 'page' AND p.path = s.path AND p.position = 0))
      OR (s.origin = 'generated' AND NOT EXISTS (
        SELECT 1 FROM docs_search_sections p WHERE p.path = s.path AND p.position = 0
          AND (p.origin = 'page' OR (${builtIn} AND p.origin = 'built-in')))))`
    const result = await this.db.execute(sql`
      WITH q AS (SELECT ${tsquery} AS query),
      candidates AS (
        (SELECT s.origin, s.path, s.position FROM docs_search_sections s, q
          WHERE s.head @@ q.query AND s.search @@ q.query AND ${visible} LIMIT ${CANDIDATES_MAX})
        UNION
        (SELECT s.origin, s.path, s.position FROM docs_search_sections s, q
          WHERE s.search @@ q.query AND ${visible} LIMIT ${CANDIDATES_MAX})
      ),
      ranked AS (
        SELECT s.origin, s.path, s.position, s.anchor, s.kind, s.page_title, s.heading,
          ts_rank(s.search, q.query, 1) AS rank
        FROM candidates c JOIN docs_search_sections s USING (origin, path, position), q
      ),
      numbered AS (
        SELECT *, row_number() OVER (PARTITION BY path ORDER BY rank DESC, position) AS nth FROM ranked
      ),
      best AS (
        SELECT * FROM numbered WHERE nth <= ${HITS_PER_PAGE} ORDER BY rank DESC, path, position LIMIT ${limit}
      )
      -- The texts are read for the best few only: they are out of line, and a snippet is the costliest step.
      SELECT best.path, best.anchor, best.kind, best.page_title AS "pageTitle", best.heading, best.rank,
        ts_headline('english', left(t.body, ${HEADLINE_TEXT_MAX}), q.query, ${HEADLINE_OPTIONS}) AS snippet
      FROM best JOIN docs_search_sections t USING (origin, path, position), q
      ORDER BY best.rank DESC, best.path, best.position`)
    return rowsOf<SectionHit>(result).map((row) => ({ ...row, rank: Number(row.rank) }))
  }
}

function pageRows(origin: Origin, path: string) {
  return and(eq(docsSearchSections.origin, origin), eq(docsSearchSections.path, path))
}

/** The query without its last word, for the prefix form: "plant wat" matches "plant" and "wat…". */
function withoutLastWord(query: string): string {
  return query.replace(/\S+\s*$/, '')
}

/** Text without the snippet's marker characters (which would otherwise pass for highlights or markup) or NUL. */
function clean(text: string): string {
  return text.replace(/[\uE000-\uE003\u0000]/g, '')
}

/** A 32-bit FNV-1a hash as a signed int4: two paths sharing one only share a turn. */
function pathKey(text: string): number {
  let hash = 0x811c9dc5
  for (let index = 0; index < text.length; index++) hash = Math.imul(hash ^ text.charCodeAt(index), 0x01000193)
  return hash | 0
}
