/**
 * The ids Trellis makes for the things its chat formats name: Anthropic's `msg_…` and `toolu_…`
 * (24 hex digits, as Anthropic's), the Responses API's `resp_…`, `msg_…`, `fc_…` and `rs_…` (48, as
 * OpenAI's). Random, from the platform's CSPRNG: a response id is also the key another request
 * reads a stored response by, so it must not be guessable.
 */
export function randomId(prefix: string, digits: number): string {
  const bytes = crypto.getRandomValues(new Uint8Array(Math.ceil(digits / 2)))
  let hex = ''
  for (let i = 0; i < bytes.length; i++) hex += HEX[bytes[i]!]
  return prefix + (hex.length === digits ? hex : hex.slice(0, digits))
}

const HEX = Array.from({ length: 256 }, (_, byte) => byte.toString(16).padStart(2, '0'))
