import { Elysia } from 'elysia'
import type { Logger } from './logger'

/** Incoming ids are reused only when they are short and plain, so they are safe to log and echo. */
const ACCEPTABLE_ID = /^[A-Za-z0-9._:-]{1,128}$/

const startedAt = new WeakMap<Request, number>()

/** What the log line needs; `principal` is there when an auth macro resolved one. */
type AfterResponse = {
  request: Request
  set: { headers: Record<string, unknown>; status?: unknown }
  responseValue: unknown
  path: string
  principal?: { owner?: string }
}

/**
 * Gives every response an `X-Request-Id` (the caller's, when it sent a plain one) and
 * writes one structured log line per request: time, request id, method, path, status,
 * duration and owner. For a stream, the duration is the time to the response head.
 */
export const observability = (logger: Logger) =>
  new Elysia({ name: 'observability' })
    .onRequest(({ request, set }) => {
      const incoming = request.headers.get('x-request-id')
      set.headers['x-request-id'] = incoming && ACCEPTABLE_ID.test(incoming) ? incoming : crypto.randomUUID()
      startedAt.set(request, performance.now())
    })
    // Destructured in the parameter list: Elysia reads it to decide what each request must
    // parse, and a hook that takes the whole context makes every request parse cookies too.
    .onAfterResponse({ as: 'global' }, ({ request, set, responseValue, path, principal }: AfterResponse) => {
      // Error hooks record the status they answer in `set` (see recordingStatus in error-contract.ts).
      const status = responseValue instanceof Response ? responseValue.status : Number(set.status ?? 200)
      logRequest(logger, request, path, set.headers['x-request-id'], status, principal?.owner)
    })

/**
 * The request log line: time, request id, method, path, status, duration and owner. Written by the
 * after-response hook, and by whatever answers a request before routing (which that hook never sees).
 */
export function logRequest(logger: Logger, request: Request, path: string, requestId: unknown, status: number, owner?: string) {
  const started = startedAt.get(request)
  logger.info('request', {
    request_id: requestId,
    method: request.method,
    path,
    status,
    duration_ms: started === undefined ? undefined : Math.round((performance.now() - started) * 1000) / 1000,
    owner: owner ?? null,
  })
}
