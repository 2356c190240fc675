import { shortDigest } from '../http/entity-tags'

/**
 * Entity tags for docs.json revisions: `"r<revision>-<first 16 hex digits of SHA-256 of the config>"`. The
 * revision number keeps them unique across history; the digest keeps them tied to the content.
 */
export async function etagFor(revision: number, config: unknown): Promise<string> {
  return `"r${revision}-${await shortDigest(JSON.stringify(config))}"`
}
