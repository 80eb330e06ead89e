/**
 * A session's workspace over a real `wrangler dev`: the local offline model drives a session that
 * writes a file with `bash` and patches it with `apply_patch`, read back through the routes; and a
 * `kill -9` of wrangler in the middle of an `apply_patch` over many files, or of a tar upload,
 * leaves every file either before or after its change (each operation commits whole or not at
 * all), with the session serving again after the restart.
 */
import { createHash } from 'node:crypto'
import { afterAll, describe, expect, it } from 'vitest'
import { tarStream } from '../../objects/workspace/tar.ts'
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
})
