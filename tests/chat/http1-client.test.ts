/**
 * The HTTP/1.1 client the `openai` provider uses on Bun (src/chat/providers/http1), against raw
 * TCP servers that write exactly the bytes each test needs.
 */
import { afterEach, describe, expect, test } from 'bun:test'
import { createServer as createTcpServer, type Server, type Socket } from 'node:net'
import { createServer as createTlsServer } from 'node:tls'
import { brotliCompressSync, gzipSync } from 'node:zlib'
import { createHttp1Fetch } from '../../src/chat/providers/http1/client'
import { defaultUpstreamFetch } from '../../src/chat/providers/upstream-fetch'

type Handler = (socket: Socket, request: string, connection: number) => void

/** A server that hands every complete request head + body to `handler`, and counts connections. */
async function rawServer(handler: Handler, options: { tls?: boolean; host?: string } = {}) {
  let connections = 0
  const sockets = new Set<Socket>()
  const onConnection = (socket: Socket) => {
    const id = ++connections
    sockets.add(socket)
    socket.on('close', () => sockets.delete(socket))
    socket.on('error', () => {})
    let buffer = ''
    socket.on('data', (data) => {
      buffer += data.toString('latin1')
      for (;;) {
        const headEnd = buffer.indexOf('\r\n\r\n')
        if (headEnd === -1) return
        const length = Number(/content-length: (\d+)/i.exec(buffer.slice(0, headEnd))?.[1] ?? 0)
        if (buffer.length < headEnd + 4 + length) return
        const request = buffer.slice(0, headEnd + 4 + length)
        buffer = buffer.slice(request.length)
        handler(socket, request, id)
      }
    })
  }
  const server: Server = options.tls
    ? createTlsServer({ key: await Bun.file(`${import.meta.dir}/fixtures/upstream-tls.key`).text(), cert: CERT }, onConnection)
    : createTcpServer(onConnection)
  await new Promise<void>((resolve) => server.listen(0, options.host ?? '127.0.0.1', resolve))
  const port = (server.address() as { port: number }).port
  const stop = () => {
    for (const socket of sockets) socket.destroy()
    return new Promise<void>((resolve) => server.close(() => resolve()))
  }
  cleanups.push(stop)
  return { url: `${options.tls ? 'https' : 'http'}://127.0.0.1:${port}/v1/chat/completions?x=1`, port, connections: () => connections }
}

const CERT = await Bun.file(`${import.meta.dir}/fixtures/upstream-tls.crt`).text()
const cleanups: (() => unknown)[] = []
afterEach(async () => {
  for (const cleanup of cleanups.splice(0)) await cleanup()
})

const post = (body = '{"model":"m"}', signal?: AbortSignal) => ({ method: 'POST', headers: { 'content-type': 'application/json' }, body, signal })
const chunk = (text: string) => `${Buffer.byteLength(text).toString(16)}\r\n${text}\r\n`
const SSE_HEAD = 'HTTP/1.1 200 OK\r\ncontent-type: text/event-stream\r\ntransfer-encoding: chunked\r\n\r\n'
const json = (body: string, extra = '') => `HTTP/1.1 200 OK\r\ncontent-type: application/json\r\ncontent-length: ${Buffer.byteLength(body)}\r\n${extra}\r\n${body}`
const decoder = new TextDecoder()

/** The body's reads, each as it came. */
async function readAll(response: Response): Promise<Uint8Array[]> {
  const reads: Uint8Array[] = []
  const reader = response.body!.getReader()
  for (;;) {
    const { done, value } = await reader.read()
    if (done) return reads
    reads.push(value)
  }
}
const text = (reads: Uint8Array[]) => decoder.decode(Buffer.concat(reads))

function newClient(options: Parameters<typeof createHttp1Fetch>[0] = {}) {
  const client = createHttp1Fetch(options)
  cleanups.push(() => client.closeIdle())
  return client
}

describe('requests', () => {
  test('go out as one HTTP/1.1 request: method, path and query, host, identity encoding, exact body length', async () => {
    let seen = ''
    const server = await rawServer((socket, request) => {
      seen = request
      socket.write(json('{}'))
    })
    const body = '{"content":"héllo ✓ 𝄞"}'
    await (await newClient()(server.url, post(body))).text()
    const [head, sent] = seen.split('\r\n\r\n')
    const lines = head.split('\r\n')
    expect(lines[0]).toBe('POST /v1/chat/completions?x=1 HTTP/1.1')
    expect(lines).toContain(`host: 127.0.0.1:${server.port}`)
    expect(lines).toContain('content-type: application/json')
    expect(lines).toContain('accept-encoding: identity')
    expect(lines).toContain(`content-length: ${Buffer.byteLength(body)}`)
    expect(Buffer.from(sent, 'latin1').toString('utf8')).toBe(body)
  })

  test('a header value that would smuggle a line break is refused before anything is sent', async () => {
    const server = await rawServer(() => {})
    const client = newClient()
    expect(() => client(server.url, { method: 'POST', headers: { authorization: 'Bearer x\r\nx-evil: 1' }, body: '' })).toThrow(TypeError)
    expect(server.connections()).toBe(0)
  })
})

describe('response bodies', () => {
  test('a chunked event stream arrives read by read, as the server sends it', async () => {
    let socket!: Socket
    const server = await rawServer((each) => {
      socket = each
      each.write(SSE_HEAD + chunk('data: {"a":1}\n\n'))
    })
    const response = await newClient()(server.url, post())
    expect(response.status).toBe(200)
    expect(response.headers.get('content-type')).toBe('text/event-stream')
    const reader = response.body!.getReader()
    const first = (await reader.read()).value!
    expect(decoder.decode(first)).toBe('data: {"a":1}\n\n')
    // The second event is only written now: the first read cannot have waited for it.
    socket.write(chunk('data: {"b":2}\n\n') + chunk('data: [DONE]\n\n') + '0\r\n\r\n')
    let rest = ''
    for (let read = await reader.read(); !read.done; read = await reader.read()) rest += decoder.decode(read.value)
    expect(rest).toBe('data: {"b":2}\n\ndata: [DONE]\n\n')
    // Reads are handed over, not lent: later reads must not overwrite an earlier one.
    expect(decoder.decode(first)).toBe('data: {"a":1}\n\n')
  })

  test('a read that holds several chunks comes out as one piece; chunk extensions and trailers are dropped', async () => {
    const server = await rawServer((socket) => socket.write(`${SSE_HEAD}5;ext=1\r\nhello\r\n1\r\n \r\n5\r\nworld\r\n0\r\nx-trailer: t\r\n\r\n`))
    const reads = await readAll(await newClient()(server.url, post()))
    expect(reads.map((read) => decoder.decode(read))).toEqual(['hello world'])
  })

  test('chunk framing split at every byte boundary still decodes to the same bytes', async () => {
    const wire = `${SSE_HEAD}${chunk('data: {"é":"✓"}\n\n')}${chunk('data: [DONE]\n\n')}0\r\n\r\n`
    const server = await rawServer(async (socket) => {
      for (const byte of Buffer.from(wire)) {
        socket.write(Buffer.from([byte]))
        await Bun.sleep(0)
      }
    })
    expect(text(await readAll(await newClient()(server.url, post())))).toBe('data: {"é":"✓"}\n\ndata: [DONE]\n\n')
  })

  test('Content-Length bodies, status text and repeated headers come through', async () => {
    const server = await rawServer((socket) =>
      socket.write('HTTP/1.1 429 Too Many Requests\r\nretry-after: 3\r\nx-a: 1\r\nx-a: 2\r\ncontent-length: 11\r\n\r\n{"e":"429"}'),
    )
    const response = await newClient()(server.url, post())
    expect([response.status, response.statusText]).toEqual([429, 'Too Many Requests'])
    expect(response.headers.get('retry-after')).toBe('3')
    expect(response.headers.get('x-a')).toBe('1, 2')
    expect(await response.text()).toBe('{"e":"429"}')
  })

  test('a status line without a reason phrase is fine', async () => {
    const server = await rawServer((socket) => socket.write('HTTP/1.1 200\r\ncontent-length: 2\r\n\r\n{}'))
    const response = await newClient()(server.url, post())
    expect([response.status, response.statusText, await response.text()]).toEqual([200, '', '{}'])
  })

  test('header bytes outside ASCII (UTF-8 text) come through as one character per byte, as with fetch', async () => {
    const server = await rawServer((socket) => {
      socket.write(Buffer.concat([Buffer.from('HTTP/1.1 200 OK\r\nx-note: '), Buffer.from('rate – limit', 'utf8'), Buffer.from('\r\ncontent-length: 2\r\n\r\n{}')]))
    })
    const response = await newClient()(server.url, post())
    expect(Buffer.from(response.headers.get('x-note')!, 'latin1').toString('utf8')).toBe('rate – limit')
    expect(await response.text()).toBe('{}')
  })

  test('a body with neither length nor chunking ends when the server closes', async () => {
    const server = await rawServer((socket) => socket.end('HTTP/1.1 200 OK\r\ncontent-type: text/event-stream\r\n\r\ndata: [DONE]\n\n'))
    expect(await (await newClient()(server.url, post())).text()).toBe('data: [DONE]\n\n')
  })

  test('interim 100 and 103 responses are skipped', async () => {
    const server = await rawServer((socket) => socket.write(`HTTP/1.1 100 Continue\r\n\r\nHTTP/1.1 103 Early Hints\r\nlink: </a>\r\n\r\n${json('{"ok":1}')}`))
    const response = await newClient()(server.url, post())
    expect(response.status).toBe(200)
    expect(await response.text()).toBe('{"ok":1}')
  })

  test.each([
    ['gzip', gzipSync],
    ['br', brotliCompressSync],
  ])('a %s body is decoded, as fetch would', async (encoding, compress) => {
    const compressed = compress('{"ok":true}')
    const server = await rawServer((socket) => {
      socket.write(`HTTP/1.1 200 OK\r\ncontent-encoding: ${encoding}\r\ncontent-length: ${compressed.length}\r\n\r\n`)
      socket.write(compressed)
    })
    expect(await (await newClient()(server.url, post())).json()).toEqual({ ok: true })
  })
})

describe('broken responses are errors, never truncated successes', () => {
  test('a malformed status line rejects the request', async () => {
    const server = await rawServer((socket) => socket.write('HTTP/2 200\r\n\r\n'))
    expect(newClient()(server.url, post())).rejects.toThrow('bad status line')
  })

  test('a status code below 100 rejects the request instead of waiting for another head', async () => {
    const server = await rawServer((socket) => socket.write('HTTP/1.1 099 Odd\r\ncontent-length: 0\r\n\r\n'))
    expect(newClient()(server.url, post())).rejects.toThrow('bad status code 099')
  })

  test('a connection that closes before the response rejects the request', async () => {
    const server = await rawServer((socket) => socket.destroy())
    expect(newClient()(server.url, post())).rejects.toThrow('closed before a response')
  })

  test('a chunked body cut off mid-stream fails the read instead of ending it', async () => {
    const server = await rawServer((socket) => socket.end(`${SSE_HEAD}${chunk('data: {"a":1}\n\n')}20\r\ndata: {"b"`))
    const response = await newClient()(server.url, post())
    expect(readAll(response)).rejects.toThrow('before the end of the response body')
  })

  test('a Content-Length body cut short fails the read', async () => {
    const server = await rawServer((socket) => socket.end('HTTP/1.1 200 OK\r\ncontent-length: 100\r\n\r\n{"partial":'))
    expect((await newClient()(server.url, post())).text()).rejects.toThrow('before the end of the response body')
  })

  test('a bad chunk size fails the read', async () => {
    const server = await rawServer((socket) => socket.write(`${SSE_HEAD}zz\r\nhello\r\n`))
    expect((await newClient()(server.url, post())).text()).rejects.toThrow('bad chunk size')
  })

  test('chunk data longer than its size fails the read', async () => {
    const server = await rawServer((socket) => socket.write(`${SSE_HEAD}2\r\nhello\r\n0\r\n\r\n`))
    expect((await newClient()(server.url, post())).text()).rejects.toThrow('longer than its size')
  })
})

describe('connections', () => {
  test('sequential requests reuse one keep-alive connection', async () => {
    const server = await rawServer((socket, _, id) => socket.write(`${SSE_HEAD}${chunk(`data: ${id}\n\n`)}0\r\n\r\n`))
    const client = newClient()
    const bodies: string[] = []
    for (let i = 0; i < 5; i++) bodies.push(await (await client(server.url, post())).text())
    expect(bodies).toEqual(Array(5).fill('data: 1\n\n'))
    expect(server.connections()).toBe(1)
  })

  test('concurrent requests each get their own connection, and all return to the pool', async () => {
    const server = await rawServer((socket) => setTimeout(() => socket.write(json('{}')), 20))
    const client = newClient()
    await Promise.all(Array.from({ length: 4 }, async () => (await client(server.url, post())).text()))
    await Promise.all(Array.from({ length: 4 }, async () => (await client(server.url, post())).text()))
    expect(server.connections()).toBe(4)
  })

  test('Connection: close, a body left unread, and an HTTP/1.0 answer all mean a fresh connection next time', async () => {
    const answers = [json('{}', 'connection: close\r\n'), `${SSE_HEAD}${chunk('data: 1\n\n')}`, 'HTTP/1.0 200 OK\r\ncontent-length: 2\r\n\r\n{}', json('{}')]
    let next = 0
    const server = await rawServer((socket) => socket.write(answers[next++]))
    const client = newClient()
    await (await client(server.url, post())).text()
    const unread = await client(server.url, post())
    await unread.body!.cancel()
    await (await client(server.url, post())).text()
    await (await client(server.url, post())).text()
    expect(server.connections()).toBe(4)
  })

  test('a body cancelled just before its last chunk (the relay stops at [DONE]) keeps its connection', async () => {
    const server = await rawServer((socket) => {
      socket.write(SSE_HEAD + chunk('data: [DONE]\n\n'))
      setTimeout(() => socket.write('0\r\n\r\n'), 30)
    })
    const client = newClient()
    for (let i = 0; i < 3; i++) {
      const reader = (await client(server.url, post())).body!.getReader()
      expect(decoder.decode((await reader.read()).value)).toBe('data: [DONE]\n\n')
      await reader.cancel()
      await Bun.sleep(60)
    }
    expect(server.connections()).toBe(1)
  })

  test('a cancelled body that keeps coming, or never ends, costs its connection', async () => {
    const closedAfter: number[] = []
    let started = 0
    const server = await rawServer((socket, request) => {
      socket.on('close', () => closedAfter.push(performance.now() - started))
      socket.write(SSE_HEAD + chunk('data: 1\n\n'))
      // The first request's body goes on and on; the second's just stops.
      if (request.includes('"endless"')) {
        const timer = setInterval(() => socket.write(chunk('x'.repeat(8192))), 5)
        socket.on('close', () => clearInterval(timer))
      }
    })
    const client = newClient()
    for (const body of ['{"endless":1}', '{"silent":1}']) {
      started = performance.now()
      const reader = (await client(server.url, post(body))).body!.getReader()
      await reader.read()
      await reader.cancel()
      while (closedAfter.length < (body.includes('endless') ? 1 : 2) && performance.now() - started < 3000) await Bun.sleep(10)
    }
    // 64 KB at 8 KB per 5 ms is about 40 ms; silence is given up on after a second.
    expect(closedAfter[0]).toBeLessThan(500)
    expect(closedAfter[1]).toBeGreaterThan(900)
    expect(closedAfter[1]).toBeLessThan(2000)
    expect(server.connections()).toBe(2)
  })

  test('bytes after an empty body, or a 205 that frames one, never reach the next response', async () => {
    const answers = [
      'HTTP/1.1 204 No Content\r\n\r\njunk',
      'HTTP/1.1 205 Reset Content\r\ntransfer-encoding: chunked\r\n\r\n',
      json('{"n":3}'),
      json('{"n":4}'),
    ]
    let next = 0
    const server = await rawServer((socket) => {
      const answer = answers[next++]
      socket.write(answer)
      // The 205's empty last chunk comes late, after the client has its response.
      if (answer.includes('205')) setTimeout(() => socket.write('0\r\n\r\n'), 30)
    })
    const client = newClient()
    const statuses: number[] = []
    for (let i = 0; i < 2; i++) {
      const response = await client(server.url, post())
      statuses.push(response.status)
      expect(response.body).toBe(null)
    }
    // Sent before the 205's last chunk arrives: it must not go out on that connection.
    expect(await (await client(server.url, post())).json()).toEqual({ n: 3 })
    await Bun.sleep(60)
    expect(await (await client(server.url, post())).json()).toEqual({ n: 4 })
    expect(statuses).toEqual([204, 205])
    // The 204's connection is dropped (junk followed it); the 205's is pooled once its body ended, and reused.
    expect(server.connections()).toBe(3)
  })

  test('a pooled connection the server closed is not reused', async () => {
    const server = await rawServer((socket) => socket.end(json('{}')))
    const client = newClient()
    await (await client(server.url, post())).text()
    await Bun.sleep(20)
    expect(await (await client(server.url, post())).text()).toBe('{}')
    expect(server.connections()).toBe(2)
  })

  test('an unused connection is closed after idleSeconds', async () => {
    let closedAt = 0
    const server = await rawServer((socket) => {
      socket.on('close', () => (closedAt = performance.now()))
      socket.write(json('{}'))
    })
    const started = performance.now()
    await (await newClient({ idleSeconds: 1 })(server.url, post())).text()
    while (!closedAt && performance.now() - started < 5000) await Bun.sleep(50)
    expect(closedAt - started).toBeGreaterThan(1000)
    expect(closedAt - started).toBeLessThan(1800)
  })

  test('a body nobody reads stops the socket reading, so TCP slows the server down', async () => {
    const megabyte = Buffer.alloc(1 << 20, 'x')
    let written = 0
    const server = await rawServer(async (socket) => {
      socket.write(`HTTP/1.1 200 OK\r\ncontent-length: ${64 * megabyte.length}\r\n\r\n`)
      for (let i = 0; i < 64; i++) {
        if (!socket.write(megabyte)) await new Promise((resolve) => socket.once('drain', resolve))
        written++
      }
    })
    const response = await newClient()(server.url, post())
    await Bun.sleep(500)
    // Kernel buffers hold a few megabytes; without the pause all 64 would be in the client's memory.
    expect(written).toBeLessThan(32)
    let received = 0
    const reader = response.body!.getReader()
    for (let read = await reader.read(); !read.done; read = await reader.read()) received += read.value.length
    expect(received).toBe(64 * megabyte.length)
    expect(written).toBe(64)
  })
})

describe('aborts', () => {
  test('an abort while waiting for the response rejects with its reason and closes the connection', async () => {
    let serverSawClose = false
    const server = await rawServer((socket) => socket.on('close', () => (serverSawClose = true)))
    const controller = new AbortController()
    const pending = newClient()(server.url, post('{}', controller.signal))
    await Bun.sleep(50)
    controller.abort(new Error('client went away'))
    expect(pending).rejects.toThrow('client went away')
    await Bun.sleep(50)
    expect(serverSawClose).toBe(true)
  })

  test('an abort mid-body fails the read with its reason', async () => {
    const server = await rawServer((socket) => socket.write(SSE_HEAD + chunk('data: 1\n\n')))
    const controller = new AbortController()
    const response = await newClient()(server.url, post('{}', controller.signal))
    const reader = response.body!.getReader()
    await reader.read()
    controller.abort(new Error('stop'))
    expect(reader.read()).rejects.toThrow('stop')
  })

  test('an abort during a TLS handshake the server never answers gives up at once', async () => {
    const silent = createTcpServer(() => {})
    await new Promise<void>((resolve) => silent.listen(0, '127.0.0.1', resolve))
    let serverSawClose = false
    silent.on('connection', (socket) => socket.on('close', () => (serverSawClose = true)))
    cleanups.push(() => new Promise((resolve) => silent.close(resolve)))
    const controller = new AbortController()
    setTimeout(() => controller.abort(new Error('connect timeout')), 100)
    const started = performance.now()
    const port = (silent.address() as { port: number }).port
    expect(newClient()(`https://127.0.0.1:${port}/v1`, post('{}', controller.signal))).rejects.toThrow('connect timeout')
    await Bun.sleep(150)
    expect(performance.now() - started).toBeLessThan(1000)
    expect(serverSawClose).toBe(true)
  })

  test('an already aborted signal sends nothing', async () => {
    const server = await rawServer(() => {})
    expect(newClient()(server.url, post('{}', AbortSignal.abort(new Error('already'))))).rejects.toThrow('already')
    await Bun.sleep(20)
    expect(server.connections()).toBe(0)
  })
})

describe('https', () => {
  test('talks TLS to a server whose certificate it can verify', async () => {
    const server = await rawServer((socket) => socket.write(json('{"secure":true}')), { tls: true })
    expect(await (await newClient({ tls: { ca: CERT } })(server.url, post())).json()).toEqual({ secure: true })
  })

  test('refuses a certificate it cannot verify, before sending the request', async () => {
    let requests = 0
    const server = await rawServer(() => requests++, { tls: true })
    expect(newClient()(server.url, post())).rejects.toThrow('self signed certificate')
    await Bun.sleep(50)
    expect(requests).toBe(0)
  })

  test('a TLS handshake that fails without a certificate error (plain HTTP on the port) rejects at once', async () => {
    const plain = createTcpServer((socket) => socket.once('data', () => socket.end('HTTP/1.1 400 Bad Request\r\ncontent-length: 0\r\n\r\n')))
    await new Promise<void>((resolve) => plain.listen(0, '127.0.0.1', resolve))
    cleanups.push(() => new Promise((resolve) => plain.close(resolve)))
    const started = performance.now()
    const port = (plain.address() as { port: number }).port
    const outcome = await newClient()(`https://127.0.0.1:${port}/v1`, post()).then(
      () => 'resolved',
      (error: Error) => error.message,
    )
    expect(outcome).not.toBe('resolved')
    expect(performance.now() - started).toBeLessThan(1000)
  })

  test('trusts a private CA given the usual way, NODE_EXTRA_CA_CERTS', async () => {
    const server = await rawServer((socket) => socket.write(json('{"private":true}')), { tls: true })
    const client = `${import.meta.dir}/../../src/chat/providers/http1/client.ts`
    const script = `const { createHttp1Fetch } = await import(${JSON.stringify(client)}); const f = createHttp1Fetch(); console.log(await (await f(${JSON.stringify(server.url)}, { method: 'POST', headers: {}, body: '{}' })).text()); f.closeIdle()`
    const run = (env: Record<string, string>) =>
      Bun.spawn(['bun', '-e', script], { env: { ...process.env, ...env }, stdout: 'pipe', stderr: 'pipe' })
    const trusted = run({ NODE_EXTRA_CA_CERTS: `${import.meta.dir}/fixtures/upstream-tls.crt` })
    expect((await new Response(trusted.stdout).text()).trim()).toBe('{"private":true}')
    expect(await trusted.exited).toBe(0)
    const untrusted = run({})
    expect(await new Response(untrusted.stderr).text()).toContain('self signed certificate')
    expect(await untrusted.exited).not.toBe(0)
  })

  test('refuses a trusted certificate issued to another host', async () => {
    const server = await rawServer((socket) => socket.write(json('{}')), { tls: true, host: '0.0.0.0' })
    const elsewhere = server.url.replace('127.0.0.1', '127.0.0.2')
    expect(newClient({ tls: { ca: CERT } })(elsewhere, post())).rejects.toThrow("does not match certificate's altnames")
  })
})

describe('which client the openai provider uses', () => {
  test('on Bun, this one; with a proxy configured, the runtime fetch, which honours it', () => {
    expect(defaultUpstreamFetch({})).not.toBe(fetch)
    expect(defaultUpstreamFetch({})).toBe(defaultUpstreamFetch({}))
    for (const name of ['HTTP_PROXY', 'HTTPS_PROXY', 'https_proxy', 'ALL_PROXY']) {
      expect(defaultUpstreamFetch({ [name]: 'http://proxy.internal:3128' })).toBe(fetch)
    }
  })
})
