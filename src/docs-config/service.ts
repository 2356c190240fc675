import DEFAULT_DOCS from './default-docs.json'
import { WRITER_LOCK_TIMEOUT_MS, isLockTimeout } from '../db/advisory-lock'
import { ifMatchAccepts } from '../http/entity-tags'
import { etagFor } from './etag'
import type { Issue, ValidateOptions, ValidationResult } from './model'
import type { RevisionSummary } from './model'
import type { DocsRevisionStore, StoredRevision } from './store'
import { validateDocsConfig } from './validation/validate'

/**
 * The docs.json being served: a stored revision, or the built-in default (revision 0) before the first one.
 * `body` is the normalised config as JSON text, keys in the order they were written. `builtIn`: it is the built-in
 * default, before any revision or as a revision stored again (`DELETE /docs.json`), so the site shows Trellis's own
 * pages.
 */
export type CurrentDocs = { revision: number; etag: string; body: string; builtIn: boolean }

/** The built-in default's text, as `DELETE /docs.json` stores it back. */
export const DEFAULT_DOCS_TEXT = `${JSON.stringify(DEFAULT_DOCS, null, 2)}\n`

/** The submitted text does not validate; `result` holds every issue. */
export class InvalidDocsConfig extends Error {
  constructor(readonly result: ValidationResult) {
    const count = result.errors.length
    super(
      `docs.json is invalid: ${count} error${count === 1 ? '' : 's'}; the first is at line ` +
        `${result.errors[0]?.line}, column ${result.errors[0]?.column}: ${result.errors[0]?.message}`,
    )
  }
}

/** The client's `If-Match` no longer names the current revision. */
export class StaleRevision extends Error {
  constructor(readonly current: string) {
    super(
      `docs.json has changed since that version was read; the current ETag is ${current}. Fetch it, merge, and retry with If-Match: ${current}`,
    )
  }
}

/** Too many writers ahead of this one: it waited {@link WRITER_LOCK_TIMEOUT_MS} for its turn. Worth retrying. */
export class WritersBusy extends Error {
  constructor() {
    super(
      `docs.json is being written by others; this write waited ${WRITER_LOCK_TIMEOUT_MS / 1000} s for its turn. Retry shortly`,
    )
  }
}

const DEFAULT_RESULT = validateDocsConfig(JSON.stringify(DEFAULT_DOCS))
if (!DEFAULT_RESULT.valid || DEFAULT_RESULT.config === undefined) {
  throw new Error(`the built-in default docs.json is invalid: ${JSON.stringify(DEFAULT_RESULT.errors)}`)
}
const DEFAULT_CONFIG = DEFAULT_RESULT.config
const DEFAULT_BODY = JSON.stringify(DEFAULT_CONFIG)
let defaultEtag: Promise<string> | undefined

/**
 * docs.json without HTTP: what is current, replacing it with a validated new revision (guarded by an
 * optional If-Match), and history. Revisions are appended only; nothing is ever updated or deleted.
 */
export class DocsConfigService {
  private cached: CurrentDocs | undefined

  constructor(
    private readonly store: DocsRevisionStore,
    private readonly clock: () => Date,
  ) {}

  /** The current config, normalised, with its ETag. */
  async current(): Promise<CurrentDocs> {
    const latest = await this.store.latestSummary()
    if (latest === undefined) return { revision: 0, etag: await this.defaultEtag(), body: DEFAULT_BODY, builtIn: true }
    if (this.cached?.etag !== latest.etag) {
      const body = await this.bodyOf(latest.revision)
      this.cached = { revision: latest.revision, etag: latest.etag, body, builtIn: body === DEFAULT_BODY }
    }
    return this.cached
  }

  /**
   * The stored `config` column is jsonb, which reorders keys; re-normalising the stored source gives the
   * author's order back. Revisions never change, so one cached body serves every GET until the next PUT.
   */
  private async bodyOf(revision: number): Promise<string> {
    const stored = await this.store.get(revision)
    if (stored === undefined) throw new Error(`docs.json revision ${revision} vanished`)
    const again = validateDocsConfig(stored.source)
    return JSON.stringify(again.valid && again.config !== undefined ? again.config : stored.config)
  }

  /**
   * Validates `text` and stores it as the next revision. Writers take turns (see DocsRevisionStore.appendNext),
   * so a write without `ifMatch` always lands on top of whatever is newest and never reports a conflict.
   * @throws InvalidDocsConfig when it does not validate; StaleRevision when `ifMatch` is not the current ETag
   *   when this writer's turn comes; WritersBusy when the turn did not come in time.
   */
  async replace(
    input: { text: string; author: string; ifMatch?: string } & ValidateOptions,
  ): Promise<{ stored: StoredRevision; warnings: Issue[] }> {
    const result = validateDocsConfig(input.text, { strict: input.strict })
    if (!result.valid || result.config === undefined) throw new InvalidDocsConfig(result)
    const config = result.config
    const size = new TextEncoder().encode(input.text).byteLength
    try {
      const stored = await this.store.appendNext(async (latest) => {
        const revision = latest?.revision ?? 0
        const currentEtag = latest?.etag ?? (await this.defaultEtag())
        if (input.ifMatch !== undefined && !ifMatchAccepts(input.ifMatch, currentEtag))
          throw new StaleRevision(currentEtag)
        return {
          source: input.text,
          config,
          etag: await etagFor(revision + 1, config),
          author: input.author,
          size,
          createdAt: this.clock().toISOString(),
        }
      })
      return { stored, warnings: result.warnings }
    } catch (error) {
      if (isLockTimeout(error)) throw new WritersBusy()
      throw error
    }
  }

  /** A page of `limit` revisions after `after`, and the number to continue after when more exist. */
  async list(limit: number, after?: number): Promise<{ revisions: RevisionSummary[]; next?: number }> {
    // One more than asked tells whether another page exists without a count.
    const rows = await this.store.list(limit + 1, after)
    const revisions = rows.slice(0, limit)
    return { revisions, next: rows.length > limit ? revisions.at(-1)!.revision : undefined }
  }

  get(revision: number) {
    return this.store.get(revision)
  }

  private defaultEtag(): Promise<string> {
    defaultEtag ??= etagFor(0, DEFAULT_CONFIG)
    return defaultEtag
  }
}
