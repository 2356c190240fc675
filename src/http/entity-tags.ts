/**
 * Entity tags (RFC 9110 §8.8.3) and the conditional requests that compare them, for the routes that
 * serve stored revisions (docs.json and the documentation pages).
 */

/** The first 16 hex digits of the SHA-256 of `text`: short enough for a header, ample to tell versions apart. */
export async function shortDigest(text: string): Promise<string> {
  const digest = await crypto.subtle.digest('SHA-256', new TextEncoder().encode(text))
  return Array.from(new Uint8Array(digest).subarray(0, 8), (byte) => byte.toString(16).padStart(2, '0')).join('')
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
