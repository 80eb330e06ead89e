/**
 * Vitest globalSetup (runs in Node, outside workerd): a fake vendor over real
 * HTTP on 127.0.0.1. Tests in workerd script it per key, then point a provider's
 * base URL at `${fakeVendorUrl}/<key>`:
 *
 *   PUT  /__plan/<key>      JSON Step[]: what the next requests under /<key>/… get, in order
 *   GET  /__requests/<key>  JSON of every request received under /<key>/… (method, path, headers, body)
 *   POST /<key>/…           answered by the next step: a recorded fixture streamed as SSE
 *                           (optionally in small chunks, with delays, or cut off by a socket
 *                           reset), or a literal status + headers + body
 */
import { readFile } from 'node:fs/promises'
import { createServer, type IncomingMessage, type ServerResponse } from 'node:http'
import { fileURLToPath } from 'node:url'
import type { TestProject } from 'vitest/node'

export type FakeStep =
  | { fixture: string; chunkSize?: number; delayMs?: number; resetAfterBytes?: number }
  | { status: number; headers?: Record<string, string>; body: string }

export interface RecordedRequest {
  method: string
  path: string
  headers: Record<string, string>
  body: string
}

declare module 'vitest' {
  export interface ProvidedContext {
    fakeVendorUrl: string
  }
}

const FIXTURES = fileURLToPath(new URL('../fixtures/llm/', import.meta.url))

export default async function setup(project: TestProject): Promise<() => Promise<void>> {
  const plans = new Map<string, FakeStep[]>()
  const received = new Map<string, RecordedRequest[]>()
  const server = createServer((req, res) => {
    handle(req, res, plans, received).catch((error: unknown) => {
      if (!res.headersSent) res.writeHead(599, { 'content-type': 'text/plain' })
      res.end(`fake vendor failed: ${String(error)}`)
    })
  })
  await new Promise<void>((resolve) => server.listen(0, '127.0.0.1', resolve))
  const { port } = server.address() as { port: number }
  project.provide('fakeVendorUrl', `http://127.0.0.1:${port}`)
  return () =>
    new Promise<void>((resolve) => {
      server.closeAllConnections()
      server.close(() => resolve())
    })
}

async function handle(
  req: IncomingMessage,
  res: ServerResponse,
  plans: Map<string, FakeStep[]>,
  received: Map<string, RecordedRequest[]>,
): Promise<void> {
  const body = await readBody(req)
  const path = new URL(req.url ?? '/', 'http://fake').pathname
  const [, first = '', second = ''] = path.split('/')
  if (req.method === 'PUT' && first === '__plan') {
    plans.set(second, JSON.parse(body) as FakeStep[])
    received.set(second, [])
    res.writeHead(204).end()
    return
  }
  if (req.method === 'GET' && first === '__requests') {
    res.writeHead(200, { 'content-type': 'application/json' }).end(JSON.stringify(received.get(second) ?? []))
    return
  }
  const headers = Object.fromEntries(Object.entries(req.headers).map(([k, v]) => [k, String(v)]))
  received.get(first)?.push({ method: req.method ?? '', path: path.slice(first.length + 1), headers, body })
  const step = plans.get(first)?.shift()
  if (!step) {
    res.writeHead(418, { 'content-type': 'application/json' }).end(JSON.stringify({ error: { message: `no plan left for ${first}` } }))
    return
  }
  if ('body' in step) {
    res.writeHead(step.status, step.headers ?? { 'content-type': 'application/json' }).end(step.body)
    return
  }
  await stream(res, await readFile(FIXTURES + step.fixture), step)
}

async function stream(res: ServerResponse, bytes: Buffer, step: Extract<FakeStep, { fixture: string }>): Promise<void> {
  res.writeHead(200, { 'content-type': 'text/event-stream; charset=utf-8', 'cache-control': 'no-cache' })
  res.flushHeaders()
  const end = step.resetAfterBytes ?? bytes.length
  const size = step.chunkSize ?? bytes.length
  for (let at = 0; at < end; at += size) {
    if (step.delayMs) await new Promise((resolve) => setTimeout(resolve, step.delayMs))
    res.write(bytes.subarray(at, Math.min(at + size, end)))
  }
  if (step.resetAfterBytes === undefined) res.end()
  // A reset mid-body: the chunked encoding never terminates, as when a connection drops.
  else setTimeout(() => res.socket?.destroy(), 20)
}

function readBody(req: IncomingMessage): Promise<string> {
  return new Promise((resolve, reject) => {
    const chunks: Buffer[] = []
    req.on('data', (chunk: Buffer) => chunks.push(chunk))
    req.on('end', () => resolve(Buffer.concat(chunks).toString('utf8')))
    req.on('error', reject)
  })
}
