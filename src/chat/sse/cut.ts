/**
 * Thrown by a stream's source to end the response the way a broken network does: the bytes sent so far, then the
 * connection closed without the stream's end or an error event. The `script` provider's `disconnect_after_events`
 * and `disconnect_after_bytes` faults throw it, so that a client's handling of a cut stream can be tested.
 */
export class StreamCut extends Error {
  override name = 'StreamCut'
}
