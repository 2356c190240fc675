/**
 * The address each request came from, for runtimes whose `Request` does not carry it (the Node
 * bridge, Deno): the entry records it as it builds or receives the request, and the app asks
 * through `AppDeps.peerAddress`. Bun's entry asks its server instead.
 */
const peers = new WeakMap<Request, string>()

export function rememberPeer(request: Request, address: string | undefined): Request {
  if (address) peers.set(request, address)
  return request
}

export const peerAddressOf = (request: Request): string | undefined => peers.get(request)
