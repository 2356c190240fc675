/**
 * Entity tags for docs.json revisions: `"r<revision>-<first 16 hex digits of SHA-256 of the config>"`. The
 * revision number keeps them unique across history; the digest keeps them tied to the content.
 */
export async function etagFor(revision: number, config: unknown): Promise<string> {
  const digest = await crypto.subtle.digest('SHA-256', new TextEncoder().encode(JSON.stringify(config)))
  const hex = Array.from(new Uint8Array(digest).subarray(0, 8), (byte) => byte.toString(16).padStart(2, '0')).join('')
  return `"r${revision}-${hex}"`
}

/** `If-Match`: strong comparison (RFC 9110 §13.1.1); `*` matches any current representation. */
export function ifMatchAccepts(header: string, current: string): boolean {
  return entityTags(header).some((tag) => tag === '*' || (!tag.startsWith('W/') && tag === current))
}

/** `If-None-Match`: weak comparison (RFC 9110 §13.1.2); true when the client's copy is current. */
export function ifNoneMatchHits(header: string, current: string): boolean {
  const opaque = current.replace(/^W\//, '')
  return entityTags(header).some((tag) => tag === '*' || tag.replace(/^W\//, '') === opaque)
}

function entityTags(header: string): string[] {
  return header
    .split(',')
    .map((tag) => tag.trim())
    .filter((tag) => tag !== '')
}
