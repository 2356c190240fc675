/*
 * The `x-trellis-ignored` response header, shared by the wire formats Trellis translates
 * (`/v1/messages`, `/v1/responses`): a field that cannot change the content of the answer is
 * accepted and ignored, and named here, so a client can see what had no effect; one that would
 * change it and cannot be translated is a 400 instead.
 */

const HEADER = 'x-trellis-ignored'

/**
 * Most names the header lists. A response header is read whole by clients (Node's parser refuses
 * more than 16 KiB of them), and a request may repeat a hint on every list member; past this
 * many, the last name says how many more were left out.
 */
const MAX_NAMES = 32

/**
 * `{ 'x-trellis-ignored': 'a, b, c' }` for the fields accepted but ignored, as the client wrote them
 * (top-level names, or `tools[3].defer_loading` for list members), each once, in the order given;
 * `{}` when there are none.
 */
export function ignoredHeader(names: string[]): Record<string, string> {
  const unique = [...new Set(names.map(headerSafe))]
  if (unique.length === 0) return {}
  const listed =
    unique.length <= MAX_NAMES
      ? unique
      : [...unique.slice(0, MAX_NAMES - 1), `and ${unique.length - (MAX_NAMES - 1)} more`]
  return { [HEADER]: listed.join(', ') }
}

/**
 * A name as the header can carry it: a client writes some names itself (a `metadata` key), and a header value holds
 * no line break or non-ASCII character (Bun refuses to send one: that was a 500), nor a name long enough to pass what
 * clients read (Node refuses 16 KiB of headers). A name that does not fit is named by the field it sits in.
 */
function headerSafe(name: string): string {
  if (SAFE_NAME.test(name)) return name
  const field = /^[A-Za-z0-9_]+/.exec(name)?.[0]
  return field && field.length <= 64 ? field : 'a field'
}

/** A top-level name or a path such as `tools[3].defer_loading`, at most 96 characters of plain ASCII. */
const SAFE_NAME = /^[A-Za-z0-9_.[\]-]{1,96}$/
