/**
 * Text that PostgreSQL cannot store as it was sent: `text` and `jsonb` refuse the NUL character,
 * and a lone UTF-16 surrogate has no UTF-8 form (it would be stored as U+FFFD, silently unlike
 * what the client sent and was told was stored). Both are refused up front, naming the field.
 */
const NUL_OR_LONE_SURROGATE = /\u0000|[\ud800-\udbff](?![\udc00-\udfff])|(?<![\ud800-\udbff])[\udc00-\udfff]/

/** What in `text` cannot be stored, as the end of "… must not contain …"; undefined when it all can. */
export function unstorable(text: string): string | undefined {
  const found = NUL_OR_LONE_SURROGATE.exec(text)?.[0]
  if (found === undefined) return undefined
  if (found === '\u0000') return 'the NUL character (U+0000), which cannot be stored'
  return `a lone surrogate (U+${found.charCodeAt(0).toString(16).toUpperCase()}), which is not a character and cannot be stored`
}

/** True when every character of `text` can be stored; see {@link unstorable}. */
export const storable = (text: string) => !NUL_OR_LONE_SURROGATE.test(text)
