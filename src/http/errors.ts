/**
 * An error with an HTTP status, thrown anywhere below a route. Each feature's error hook
 * renders it in that feature's contract (`{error, message}` for the plant store and
 * docs.json, OpenAI's shape for chat), so the same failure reads naturally to each client.
 */
export class HttpError extends Error {
  constructor(
    readonly status: number,
    message: string,
    readonly extra: {
      headers?: Record<string, string>
      /** The request field at fault, for contracts that name it (OpenAI's `param`). */
      param?: string
      /** A machine-readable code, for contracts that carry one. */
      code?: string
      /** The kind of error, for contracts that carry one (OpenAI's `type`). */
      type?: string
      /** Extra body fields for contracts that allow them (docs.json's `errors`). */
      body?: Record<string, unknown>
    } = {},
  ) {
    super(message)
    this.name = 'HttpError'
  }
}

export const STATUS_TEXT: Record<number, string> = {
  400: 'Bad Request',
  401: 'Unauthorized',
  403: 'Forbidden',
  404: 'Not Found',
  405: 'Method Not Allowed',
  409: 'Conflict',
  412: 'Precondition Failed',
  413: 'Payload Too Large',
  415: 'Unsupported Media Type',
  422: 'Unprocessable Entity',
  429: 'Too Many Requests',
  500: 'Internal Server Error',
  502: 'Bad Gateway',
  503: 'Service Unavailable',
  504: 'Gateway Timeout',
}

/**
 * The HttpError behind a failure, if any. Elysia wraps whatever a `parse` hook throws in
 * its own ParseError, so a 413 or 415 raised while reading the body sits in `cause`.
 */
export function asHttpError(error: unknown): HttpError | undefined {
  if (error instanceof HttpError) return error
  const cause = (error as { cause?: unknown } | undefined)?.cause
  return cause instanceof HttpError ? cause : undefined
}
