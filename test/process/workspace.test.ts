/**
 * A session's workspace over a real `wrangler dev`: the local offline model drives a session that
 * writes a file with `bash` and patches it with `apply_patch`, read back through the routes; and a
 * `kill -9` of wrangler in the middle of an `apply_patch` over many files, or of a tar upload,
 * leaves every file either before or after its change (each operation commits whole or not at
 * all), with the session serving again after the restart. An upload streams: a `kill -9` while its
 * body is half sent leaves nothing of it, and a tar three times the size the worker once held whole
 * passes through with the isolate's live heap flat.
 */
import { createHash } from 'node:crypto'
import { afterAll, describe, expect, it } from 'vitest'
import { tarStream } from '../../objects/workspace/tar.ts'
import { inspectorOf } from '../support/inspector.ts'
import { devToken, startWrangler, tempPersistDir, type Wrangler } from '../support/wrangler.ts'

const FILES = 200

describe('the workspace over a real wrangler dev', () => {
  const persistTo = tempPersistDir()
  let dev: Wrangler | undefined
  afterAll(async () => dev?.stop())

  const call = async (path: string, init: RequestInit = {}) => {
    const headers = new Headers(init.headers)
    headers.set('authorization', `Bearer ${await devToken()}`)
    return fetch(`${dev!.url}${path}`, { ...init, headers })
  }
  const json = (method: string, body: unknown) => ({ method, headers: { 'content-type': 'application/json' }, body: JSON.stringify(body) })
  const idle = async (id: string) => {
    const deadline = Date.now() + 60_000
    for (;;) {
      const view = (await (await call(`/v1/sessions/${id}`)).json()) as { status: string }
      if (view.status === 'idle') return
      if (Date.now() > deadline) throw new Error(`session ${id} still ${view.status}`)
      await new Promise((r) => setTimeout(r, 100))
    }
  }
  const file = async (id: string, path: string) => {
    const res = await call(`/v1/sessions/${id}/workspace/file?path=${encodeURIComponent(path)}`)
    return res.status === 200 ? res.text() : null
  }
  const archive = async (files: [string, string][]) =>
    new Uint8Array(
      await new Response(
        tarStream(
          (async function* () {
            for (const [path, text] of files) yield { path, bytes: new TextEncoder().encode(text) }
          })(),
        ),
      ).arrayBuffer(),
    )

  it('the local model writes a file with bash and patches it with apply_patch', async () => {
    dev = await startWrangler({ persistTo })
    expect((await call('/v1/sessions', json('POST', { id: 'ws-local' }))).status).toBe(201)
    const rules = ['bash', 'apply_patch'].map((tool) => ({ tool, action: 'allow' }))
    expect((await call('/v1/sessions/ws-local/config', json('PUT', { permission: { rules } }))).status).toBe(200)
    const bash = { command: "printf 'hello\\nworld\\n' > hello.txt && cat hello.txt" }
    expect((await call('/v1/sessions/ws-local/prompt', json('POST', { text: `/tool bash ${JSON.stringify(bash)}` }))).status).toBe(202)
    await idle('ws-local')
    expect(await file('ws-local', 'hello.txt')).toBe('hello\nworld\n')
    const patch = ['*** Begin Patch', '*** Update File: hello.txt', '@@', ' hello', '-world', '+edge', '*** End Patch'].join('\n')
    expect((await call('/v1/sessions/ws-local/prompt', json('POST', { text: `/tool apply_patch ${JSON.stringify({ patch })}` }))).status).toBe(202)
    await idle('ws-local')
    expect(await file('ws-local', 'hello.txt')).toBe('hello\nedge\n')
  })

  it('kill -9 during an apply_patch over many files leaves every file before or after', async () => {
    const files = Array.from({ length: FILES }, (_, i) => [`src/f${String(i).padStart(3, '0')}.txt`, `line ${i}\nbefore\n`] as [string, string])
    expect((await call('/v1/sessions', json('POST', { id: 'ws-crash-patch' }))).status).toBe(201)
    expect((await call('/v1/sessions/ws-crash-patch/config', json('PUT', { permission: { rules: [{ tool: 'apply_patch', action: 'allow' }] } }))).status).toBe(200)
    expect((await call('/v1/sessions/ws-crash-patch/workspace/tar', { method: 'PUT', body: await archive(files) })).status).toBe(200)
    const patch = ['*** Begin Patch', ...files.flatMap(([path, text]) => [`*** Update File: ${path}`, '@@', ` ${text.split('\n')[0]}`, '-before', '+after']), '*** End Patch'].join('\n')
    expect((await call('/v1/sessions/ws-crash-patch/prompt', json('POST', { text: `/tool apply_patch ${JSON.stringify({ patch })}` }))).status).toBe(202)
    await new Promise((r) => setTimeout(r, 30))
    await dev!.crash()
    dev = await startWrangler({ persistTo })
    // One listing is one synchronous read of the index: a snapshot, even if the restarted session
    // runs the patch again meanwhile.
    const listed = (await (await call('/v1/sessions/ws-crash-patch/workspace?dir=src&limit=1000')).json()) as { entries: { path: string; content: string }[] }
    expect(listed.entries).toHaveLength(FILES)
    const sha = (text: string) => createHash('sha256').update(text).digest('hex')
    const seen = new Set<string>()
    for (const [path, text] of files) {
      const content = listed.entries.find((entry) => entry.path === path)!.content
      expect([sha(text), sha(text.replace('before', 'after'))]).toContain(content)
      seen.add(content === sha(text) ? 'before' : 'after')
    }
    // One patch is one operation: its files all changed, or none did.
    expect(seen.size).toBe(1)
    await idle('ws-crash-patch')
  })

  it('kill -9 during a tar upload leaves the workspace before or after it', async () => {
    expect((await call('/v1/sessions', json('POST', { id: 'ws-crash-upload' }))).status).toBe(201)
    const big = 'x'.repeat(64 * 1024)
    const files = Array.from({ length: 300 }, (_, i) => [`data/d${i}.txt`, `${i}:${big}`] as [string, string])
    const upload = call('/v1/sessions/ws-crash-upload/workspace/tar', { method: 'PUT', body: await archive(files) }).then((r) => r.status).catch(() => null)
    await new Promise((r) => setTimeout(r, 150))
    await dev!.crash()
    const status = await upload
    dev = await startWrangler({ persistTo })
    const listed = (await (await call('/v1/sessions/ws-crash-upload/workspace?limit=1000')).json()) as { entries: { path: string; size: number }[] }
    // Acknowledged means written whole; otherwise it is whole or absent.
    if (status === 200) expect(listed.entries).toHaveLength(files.length)
    expect([0, files.length]).toContain(listed.entries.length)
    if (listed.entries.length > 0) {
      for (const [path, text] of [files[0]!, files[files.length - 1]!]) expect(await file('ws-crash-upload', path)).toBe(text)
    }
  })

  /** A tar of `count` files of `size` bytes, produced as it is sent; `before(i)` runs before file `i` is produced. */
  const lazyArchive = (count: number, size: number, before: (i: number) => Promise<void> = async () => {}) =>
    tarStream(
      (async function* () {
        for (let i = 0; i < count; i++) {
          await before(i)
          yield { path: `big/f${i}.bin`, bytes: new Uint8Array(size).fill(i + 1) }
        }
      })(),
    )
  const upload = (id: string, body: ReadableStream<Uint8Array>) =>
    call(`/v1/sessions/${id}/workspace/tar`, { method: 'PUT', body, duplex: 'half' } as RequestInit)

  it('kill -9 while the body of an upload is half sent leaves nothing of it; an upload after the restart is whole', async () => {
    expect((await call('/v1/sessions', json('POST', { id: 'ws-crash-stream' }))).status).toBe(201)
    let reached = () => {}
    const halfway = new Promise<void>((resolve) => (reached = resolve))
    // Five of ten files sent, then the sender stalls (as a slow client would) until the crash.
    const body = lazyArchive(10, 1024 * 1024, async (i) => {
      if (i === 5) {
        reached()
        await new Promise(() => {})
      }
    })
    const status = upload('ws-crash-stream', body).then((r) => r.status).catch(() => null)
    await halfway
    await new Promise((r) => setTimeout(r, 500))
    await dev!.crash()
    expect(await status).toBeNull()
    dev = await startWrangler({ persistTo })
    const listed = (await (await call('/v1/sessions/ws-crash-stream/workspace?limit=1000')).json()) as { entries: unknown[] }
    expect(listed.entries).toEqual([])
    const res = await upload('ws-crash-stream', lazyArchive(3, 1024 * 1024))
    expect(res.status).toBe(200)
    const after = (await (await call('/v1/sessions/ws-crash-stream/workspace?limit=1000')).json()) as { entries: { path: string; size: number }[] }
    expect(after.entries.map((e) => [e.path, e.size])).toEqual([0, 1, 2].map((i) => [`big/f${i}.bin`, 1024 * 1024]))
  })

  it('a 96 MiB tar streams through with the live heap flat (an upload held whole would add its size)', { timeout: 180_000 }, async () => {
    expect((await call('/v1/sessions', json('POST', { id: 'ws-memory' }))).status).toBe(201)
    const inspector = inspectorOf(dev!.inspectorPort, dev!.url)
    try {
      const FILES = 12
      const SIZE = 8 * 1024 * 1024
      const samples: { sent: number; heap: number }[] = []
      // The sender pauses before files 2 and 11 while the heap is sampled: by then the session has
      // read 16 MiB, then 88 MiB, of the body.
      const body = lazyArchive(FILES, SIZE, async (i) => {
        if (i !== 2 && i !== 11) return
        await new Promise((r) => setTimeout(r, 1_000))
        samples.push({ sent: i * 8, heap: await inspector.liveHeapMb() })
      })
      const res = await upload('ws-memory', body)
      expect(res.status).toBe(200)
      const committed = (await res.json()) as { changes: unknown[]; totals: { bytes: number } }
      expect(committed.changes).toHaveLength(FILES)
      expect(committed.totals.bytes).toBe(FILES * SIZE)
      console.log(samples.map((s) => `after ${s.sent} MiB of the body: live heap ${s.heap.toFixed(1)} MiB`).join('\n'))
      expect(samples).toHaveLength(2)
      // 72 MiB more of the body read between the samples; one chunk being filled is 1 MiB.
      expect(samples[1]!.heap - samples[0]!.heap).toBeLessThan(8)
      expect(await file('ws-memory', `big/f${FILES - 1}.bin`).then((t) => t?.length)).toBe(SIZE)
    } finally {
      inspector.close()
    }
  })
})
