import { Elysia } from 'elysia'
import type { Logger } from '../telemetry/logger'

/** Incoming ids are reused only when they are short and plain, so they are safe to log and echo. */
const ACCEPTABLE_ID = /^[A-Za-z0-9._:-]{1,128}$/

const startedAt = new WeakMap<Request, number>()

/** What the log line needs; `principal` is there when an auth macro resolved one. */
type AfterResponse = {
  request: Request
  set: { headers: Record<string, unknown>; status?: unknown }
  responseValue: unknown
  path: string
  /** The matched route's template (`/plants/:id`); empty when no route matched. */
  route: string
  principal?: { owner?: string }
}

/** Where request metrics go (src/telemetry/metrics.ts); optional, so the logger can be used alone. */
export type RequestMetrics = { httpRequest(route: string, method: string, status: number, seconds: number): void }

/**
 * Gives every response an `X-Request-Id` (the caller's, when it sent a plain one) and
 * writes one structured log line per request: time, request id, method, path, status,
 * duration and owner. For a stream, the duration is the time to the response head.
 */
export const observability = (logger: Logger, metrics?: RequestMetrics) =>
  new Elysia({ name: 'observability' })
    .onRequest(({ request, set }) => {
      const incoming = request.headers.get('x-request-id')
      set.headers['x-request-id'] = incoming && ACCEPTABLE_ID.test(incoming) ? incoming : crypto.randomUUID()
      startedAt.set(request, performance.now())
    })
    // Destructured in the parameter list: Elysia reads it to decide what each request must
    // parse, and a hook that takes the whole context makes every request parse cookies too.
    .onAfterResponse({ as: 'global' }, ({ request, set, responseValue, path, route, principal }: AfterResponse) => {
      // Error hooks record the status they answer in `set` (see recordingStatus in plant-store-errors.ts).
      const status = responseValue instanceof Response ? responseValue.status : Number(set.status ?? 200)
      const seconds = logRequest(logger, request, path, set.headers['x-request-id'], status, principal?.owner)
      metrics?.httpRequest(route || 'unmatched', request.method, status, seconds)
    })

/**
 * The request log line: time, request id, method, path, status, duration and owner. Written by the
 * after-response hook, and by whatever answers a request before routing (which that hook never sees).
 */
export function logRequest(
  logger: Logger,
  request: Request,
  path: string,
  requestId: unknown,
  status: number,
  owner?: string,
): number {
  const started = startedAt.get(request)
  const ms = started === undefined ? 0 : performance.now() - started
  logger.info('request', {
    request_id: requestId,
    method: request.method,
    path,
    status,
    duration_ms: started === undefined ? undefined : Math.round(ms * 1000) / 1000,
    owner: owner ?? null,
  })
  return ms / 1000
}
