import { Type } from '@sinclair/typebox'

/**
 * A JSON integer, and only that. Elysia's `t.Integer` also accepts a numeric string ("5"):
 * right for a query string, wrong for a JSON body (OpenAI refuses `"max_tokens": "5"`, and a
 * relayed body would carry the string upstream), and it documents every integer as
 * `string | integer` with a string default, which the OpenAPI linters reject.
 */
export const Integer = Type.Integer
