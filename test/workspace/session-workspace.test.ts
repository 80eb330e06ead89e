/**
 * A session's workspace end to end through the worker and a real SessionObject: the local model
 * calls the work tools (`/tool bash …`, `/tool apply_patch …`), each change is recorded `by` its tool
 * call, a tool with side effects asks its owner unless a rule allows it (and writes nothing
 * until answered), and the workspace routes list, read (byte and line ranges), upload (one file or
 * a tar archive), download as tar and diff; refused uploads write nothing to the log or the index.
 */
import { runInDurableObject } from 'cloudflare:test'
import { describe, expect, it } from 'vitest'
import { WORKSPACE_LIMITS } from '../../objects/core/limits.ts'
import { Ledger } from '../../objects/ledger/ledger.ts'
import type { SessionObject } from '../../objects/session/wiring/session-object.ts'
import { readTar, tarStream } from '../../objects/workspace/tar.ts'
import type { Change } from '../../objects/workspace/tree.ts'
import { api, events, newSession, postJson, waitIdle } from '../support/session.ts'

const text = (s: string) => new TextEncoder().encode(s)
const ALLOW_WORK = { permission: { rules: ['write', 'edit', 'apply_patch', 'bash'].map((tool) => ({ tool, action: 'allow' })) } }

async function allowWork(id: string, document: Record<string, unknown> = ALLOW_WORK) {
  const res = await api(`/v1/sessions/${id}/config`, { method: 'PUT', headers: { 'content-type': 'application/json' }, body: JSON.stringify(document) })
  expect(res.status).toBe(200)
}

async function prompt(id: string, line: string) {
  expect((await postJson(`/v1/sessions/${id}/prompt`, { text: line })).status).toBe(202)
  await waitIdle(id)
}

/** The outcome of every tool call, in order: `ok` with its JSON output, or the failure code. */
async function outcomes(id: string) {
  return (await events(id))
    .filter((e) => e.type === 'session.next.tool.succeeded' || e.type === 'session.next.tool.failed')
    .map((e) => {
      const payload = e.payload as { toolCallId: string; content?: string; error?: { code: string; message: string } }
      return payload.error ? { id: payload.toolCallId, code: payload.error.code, message: payload.error.message } : { id: payload.toolCallId, output: JSON.parse(payload.content!) as Record<string, unknown> }
    })
}

/** The workspace's changes from its own topic, and its index rows, read inside the object. */
function stored(id: string, stub: DurableObjectStub<SessionObject>) {
  return runInDurableObject(stub, (_: SessionObject, state: DurableObjectState) => {
    const changes = new Ledger(state.storage).byTopic(`session.${id}.workspace`, { limit: 1000 }).items.map((item) => item.payload as unknown as Change)
    const [index] = state.storage.sql.exec<{ n: number }>('select count(*) as n from workspace_file').toArray()
    // A refused stranger's attempt is recorded on the denials topic, which is the access log, not the workspace's.
    const [log] = state.storage.sql.exec<{ n: number }>("select count(*) as n from log where topic not like '%.denials'").toArray()
    return { changes, index: index!.n, log: log!.n }
  })
}

async function readFile(id: string, path: string, query = '') {
  const res = await api(`/v1/sessions/${id}/workspace/file?path=${encodeURIComponent(path)}${query}`)
  return { status: res.status, body: res.status === 200 ? await res.text() : ((await res.json()) as { error: { code: string } }).error.code }
}

describe('the work tools in a session', () => {
  it('bash writes a file and apply_patch patches it; each change is by its tool call', async () => {
    const { id, stub } = await newSession('ws-tools')
    await allowWork(id)
    await prompt(id, `/tool bash ${JSON.stringify({ command: "mkdir -p src && printf 'one\\ntwo\\nthree\\n' > src/notes.txt && wc -l < src/notes.txt" })}`)
    const patch = ['*** Begin Patch', '*** Update File: src/notes.txt', '@@', ' one', '-two', '+TWO', ' three', '*** End Patch'].join('\n')
    await prompt(id, `/tool apply_patch ${JSON.stringify({ patch })}`)
    const [bash, applied] = await outcomes(id)
    expect(bash).toMatchObject({ output: { exitCode: 0, stdout: '3\n', executor: 'embedded' } })
    expect(applied).toMatchObject({ output: { complete: true, applied: 1, files: [{ path: 'src/notes.txt', status: 'applied', hunks: [{ hunk: 1, status: 'applied' }] }] } })
    expect(await readFile(id, 'src/notes.txt')).toEqual({ status: 200, body: 'one\nTWO\nthree\n' })
    // The shell's `>` truncates before it writes: its changes are all the bash call's, then the patch's one.
    const { changes } = await stored(id, stub)
    expect(changes.every((c) => c.path === 'src/notes.txt')).toBe(true)
    expect(changes.map((c) => c.by)).toEqual([...changes.slice(0, -1).map(() => bash!.id), applied!.id])
    expect(changes.length).toBeGreaterThan(1)
  })

  it('read pages by lines, describes binary files, and refuses paths outside the workspace', async () => {
    const { id } = await newSession('ws-read')
    const lines = Array.from({ length: 30 }, (_, i) => `line ${i + 1}`).join('\n')
    expect((await api(`/v1/sessions/${id}/workspace/file?path=a.txt`, { method: 'PUT', body: lines })).status).toBe(200)
    expect((await api(`/v1/sessions/${id}/workspace/file?path=b.bin`, { method: 'PUT', body: new Uint8Array([0x89, 0x50, 0, 1]) })).status).toBe(200)
    await prompt(id, [`/tool read ${JSON.stringify({ path: 'a.txt', offset: 11, limit: 5 })}`, `/tool read ${JSON.stringify({ path: '/workspace/b.bin' })}`, `/tool read ${JSON.stringify({ path: '../etc/passwd' })}`, `/tool read ${JSON.stringify({ path: 'a.txt\u0000' })}`].join('\n'))
    const [page, binary, escape, invalid] = await outcomes(id)
    expect(page).toMatchObject({ output: { text: 'line 11\nline 12\nline 13\nline 14\nline 15', from: 11, to: 15, lines: 30, next: 16, binary: false } })
    expect(binary).toMatchObject({ output: { binary: true, size: 4 } })
    expect(String(binary!.output!.text)).not.toContain('\u0000')
    expect([escape!.code, invalid!.code]).toEqual(['PATH_ESCAPE', 'PATH_INVALID'])
  })

  it('a page of a large file is what the model is shown whole, and the next page starts after it', async () => {
    const { id } = await newSession('ws-read-large')
    const lines = Array.from({ length: 5_000 }, (_, i) => `line ${i + 1}: "quoted" text, and more text after it`)
    expect((await api(`/v1/sessions/${id}/workspace/file?path=big.txt`, { method: 'PUT', body: `${lines.join('\n')}\n` })).status).toBe(200)
    await prompt(id, `/tool read ${JSON.stringify({ path: 'big.txt' })}`)
    const settled = (await events(id)).find((e) => e.type === 'session.next.tool.succeeded')!.payload as { content: string; artifact?: string }
    // Not cut for the model: the page fits under the cap, so no line of it goes unseen.
    expect(settled.artifact).toBeUndefined()
    const page = JSON.parse(settled.content) as { text: string; from: number; to: number; lines: number; next: number }
    expect(page).toMatchObject({ from: 1, lines: 5_000, next: page.to + 1 })
    expect(page.text).toBe(lines.slice(0, page.to).join('\n'))
    expect(page.to).toBeGreaterThan(100)
  })

  it('a tool with side effects asks without a rule that allows it, and writes nothing until answered', async () => {
    const { id, stub } = await newSession('ws-deny')
    await allowWork(id, { permission: { rules: [{ tool: 'bash', match: 'echo *', action: 'allow' }, { tool: 'bash', match: 'rm *', action: 'deny' }] } })
    const line = [`/tool write ${JSON.stringify({ path: 'a.txt', content: 'x' })}`, `/tool bash ${JSON.stringify({ command: 'echo hi > b.txt' })}`, `/tool bash ${JSON.stringify({ command: 'echo hi && rm -rf src' })}`].join('\n')
    expect((await postJson(`/v1/sessions/${id}/prompt`, { text: line })).status).toBe(202)
    // No rule names `write`, so it asks (the default for a tool that acts); the step's other calls run meanwhile.
    let pending: { toolCallId: string; tool: string; subjects: string[] }[] = []
    for (let i = 0; i < 400 && pending.length === 0; i++) {
      pending = ((await (await api(`/v1/sessions/${id}/permissions`)).json()) as { items: typeof pending }).items
      if (pending.length === 0) await new Promise((resolve) => setTimeout(resolve, 25))
    }
    expect(pending).toMatchObject([{ tool: 'write', subjects: ['a.txt'] }])
    const reject = await postJson(`/v1/sessions/${id}/permissions`, { toolCallId: pending[0]!.toolCallId, reply: 'reject', reason: 'not now' })
    expect(reject.status).toBe(200)
    await waitIdle(id)
    const [write, echo, rm] = await outcomes(id)
    expect(write).toMatchObject({ code: 'PERMISSION_DENIED' })
    expect(write!.message).toContain('not now')
    expect(echo).toMatchObject({ output: { exitCode: 0 } })
    expect(rm).toMatchObject({ code: 'PERMISSION_DENIED' })
    expect(rm!.message).toContain('denied')
    expect(new Set((await stored(id, stub)).changes.map((c) => c.path))).toEqual(new Set(['b.txt']))
  })

  it('edit replaces a unique string and refuses an ambiguous one', async () => {
    const { id } = await newSession('ws-edit')
    await allowWork(id)
    expect((await api(`/v1/sessions/${id}/workspace/file?path=a.ts`, { method: 'PUT', body: 'let a = 1\nlet b = 1\n' })).status).toBe(200)
    await prompt(id, [`/tool edit ${JSON.stringify({ path: 'a.ts', oldString: '= 1', newString: '= 2' })}`, `/tool edit ${JSON.stringify({ path: 'a.ts', oldString: 'a = 1', newString: 'a = 3' })}`, `/tool grep ${JSON.stringify({ pattern: 'let \\w = \\d' })}`].join('\n'))
    const [ambiguous, unique, grep] = await outcomes(id)
    expect(ambiguous).toMatchObject({ code: 'EDIT_NOT_UNIQUE' })
    expect(unique).toMatchObject({ output: { replaced: 1, line: 1 } })
    expect(grep).toMatchObject({ output: { hits: [{ path: 'a.ts', line: 1, text: 'let a = 3' }, { path: 'a.ts', line: 2, text: 'let b = 1' }], truncated: false } })
  })
})

describe('the workspace routes', () => {
  it('upload, list, read by byte and line range, diff, and tar both ways', async () => {
    const { id } = await newSession('ws-routes')
    const first = (await (await api(`/v1/sessions/${id}/workspace/file?path=src/a.txt`, { method: 'PUT', body: 'a1\na2\na3\n' })).json()) as { changes: { seq: number; by: string }[] }
    expect(first.changes).toHaveLength(1)
    const archive = new Uint8Array(
      await new Response(
        tarStream(
          (async function* () {
            yield { path: 'src/b.txt', bytes: text('bee') }
            yield { path: `deep/${'d'.repeat(120)}/c.txt`, bytes: text('sea') }
          })(),
        ),
      ).arrayBuffer(),
    )
    expect((await api(`/v1/sessions/${id}/workspace/tar`, { method: 'PUT', body: archive })).status).toBe(200)
    const listing = (await (await api(`/v1/sessions/${id}/workspace?dir=src`)).json()) as { entries: { path: string }[] }
    expect(listing.entries.map((e) => e.path)).toEqual(['src/a.txt', 'src/b.txt'])
    expect(await readFile(id, 'src/a.txt', '&line=2&lines=1')).toEqual({ status: 200, body: 'a2\n' })
    expect(await readFile(id, 'src/a.txt', '&offset=3&length=2')).toEqual({ status: 200, body: 'a2' })
    expect(await readFile(id, 'src/missing.txt')).toEqual({ status: 404, body: 'FILE_NOT_FOUND' })
    const diff = (await (await api(`/v1/sessions/${id}/workspace/diff?from=${first.changes[0]!.seq}`)).json()) as { differences: { path: string; before: string | null }[] }
    expect(diff.differences.map((d) => [d.path, d.before])).toEqual([
      ['src/b.txt', null],
      [`deep/${'d'.repeat(120)}/c.txt`, null],
    ])
    const tar = await readTar(new Uint8Array(await (await api(`/v1/sessions/${id}/workspace/tar`)).arrayBuffer()))
    expect(tar.map((f) => [f.path, new TextDecoder().decode(f.bytes)])).toEqual([
      [`deep/${'d'.repeat(120)}/c.txt`, 'sea'],
      ['src/a.txt', 'a1\na2\na3\n'],
      ['src/b.txt', 'bee'],
    ])
  })

  it('a refused upload writes nothing to the log or the index', async () => {
    const { id, stub } = await newSession('ws-refused')
    expect((await api(`/v1/sessions/${id}/workspace/file?path=keep.txt`, { method: 'PUT', body: 'kept' })).status).toBe(200)
    const before = await stored(id, stub)
    const code = async (res: Response) => [res.status, ((await res.json()) as { error: { code: string } }).error.code]
    expect(await code(await api(`/v1/sessions/${id}/workspace/file?path=big.bin`, { method: 'PUT', body: new Uint8Array(WORKSPACE_LIMITS.fileBytes + 1) }))).toEqual([413, 'FILE_TOO_LARGE'])
    expect(await code(await api(`/v1/sessions/${id}/workspace/file?path=../x`, { method: 'PUT', body: 'x' }))).toEqual([403, 'PATH_ESCAPE'])
    expect(await code(await api(`/v1/sessions/${id}/workspace/file?path=${encodeURIComponent('a\u202eb')}`, { method: 'PUT', body: 'x' }))).toEqual([400, 'PATH_INVALID'])
    expect(await code(await api(`/v1/sessions/${id}/workspace/file?path=keep.txt/inner`, { method: 'PUT', body: 'x' }))).toEqual([409, 'NOT_A_DIRECTORY'])
    // One bad entry refuses the whole archive: its good file is not written either.
    const archive = new Uint8Array(await new Response(tarStream((async function* () { yield { path: 'good.txt', bytes: text('g') }; yield { path: 'keep.txt/bad', bytes: text('b') } })())).arrayBuffer())
    expect(await code(await api(`/v1/sessions/${id}/workspace/tar`, { method: 'PUT', body: archive }))).toEqual([409, 'NOT_A_DIRECTORY'])
    expect(await code(await api(`/v1/sessions/${id}/workspace/tar`, { method: 'PUT', body: text('not a tar archive, just text') }))).toEqual([400, 'TAR_INVALID'])
    expect(await code(await api(`/v1/sessions/${id}/workspace/file?path=x.txt`, { method: 'PUT', body: 'x' }, 'mallory'))).toEqual([404, 'SESSION_NOT_FOUND'])
    expect(await stored(id, stub)).toEqual(before)
  })

  it('a body sent without a length is read as it arrives: refused past the file limit with no chunk left staged', async () => {
    const { id, stub } = await newSession('ws-streamed')
    const before = await stored(id, stub)
    let sent = 0
    const endless = new ReadableStream<Uint8Array>({
      pull(controller) {
        sent += 512 * 1024
        controller.enqueue(new Uint8Array(512 * 1024))
      },
    })
    const res = await api(`/v1/sessions/${id}/workspace/file?path=big.bin`, { method: 'PUT', body: endless, duplex: 'half' } as RequestInit)
    expect([res.status, ((await res.json()) as { error: { code: string } }).error.code]).toEqual([413, 'FILE_TOO_LARGE'])
    // The session stopped reading at the limit; the worker drained a bounded rest (DRAIN_MAX_BYTES).
    expect(sent).toBeGreaterThan(WORKSPACE_LIMITS.fileBytes)
    expect(await stored(id, stub)).toEqual(before)
    const staged = await runInDurableObject(stub, (_: SessionObject, state: DurableObjectState) => state.storage.sql.exec<{ n: number }>("select count(*) as n from artifact_chunk where hash like 'staged:%'").one().n)
    expect(staged).toBe(0)
    // A streamed body within the limits is written whole.
    const ok = new Blob([new Uint8Array(3 * 1024 * 1024).fill(7)]).stream()
    expect((await api(`/v1/sessions/${id}/workspace/file?path=ok.bin`, { method: 'PUT', body: ok, duplex: 'half' } as RequestInit)).status).toBe(200)
    expect(await readFile(id, 'ok.bin', '&offset=3145727&length=1')).toEqual({ status: 200, body: '\u0007' })
  })
})
