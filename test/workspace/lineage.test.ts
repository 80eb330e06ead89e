/**
 * A session's workspace through its lineage: a fork starts from the origin's tree at the fork
 * point without copying blobs (the child reads them through from the origin), the two trees are
 * isolated afterwards both ways, and a truncation takes the tree back with the conversation.
 */
import { runInDurableObject } from 'cloudflare:test'
import { env } from 'cloudflare:workers'
import { describe, expect, it } from 'vitest'
import type { SessionObject } from '../../objects/session/wiring/session-object.ts'
import { uniqueName } from '../support/ledger.ts'
import { api, events, newSession, postJson, waitIdle } from '../support/session.ts'

const put = (id: string, path: string, body: string) => api(`/v1/sessions/${id}/workspace/file?path=${encodeURIComponent(path)}`, { method: 'PUT', body })
async function tree(id: string): Promise<Record<string, string>> {
  const { entries } = (await (await api(`/v1/sessions/${id}/workspace`)).json()) as { entries: { path: string }[] }
  const out: Record<string, string> = {}
  for (const { path } of entries) out[path] = await (await api(`/v1/sessions/${id}/workspace/file?path=${encodeURIComponent(path)}`)).text()
  return out
}
async function restPoint(id: string, text = '/say ok'): Promise<number> {
  expect((await postJson(`/v1/sessions/${id}/prompt`, { text })).status).toBe(202)
  await waitIdle(id)
  return (await events(id)).at(-1)!.seq
}
const blobRows = (stub: DurableObjectStub<SessionObject>) =>
  runInDurableObject(stub, (_: SessionObject, state: DurableObjectState) => state.storage.sql.exec<{ n: number }>("select count(*) as n from artifact where kind = 'workspace'").toArray()[0]!.n)

describe('workspace lineage', () => {
  it('a fork starts from the tree at the fork point, copies no blob, and the two trees stay apart', async () => {
    const { id } = await newSession('ws-origin')
    expect((await put(id, 'a.txt', 'a v1')).status).toBe(200)
    expect((await put(id, 'src/b.txt', 'b v1')).status).toBe(200)
    const at = await restPoint(id)
    expect((await put(id, 'a.txt', 'a v2')).status).toBe(200)

    const child = uniqueName('ws-fork')
    expect((await postJson(`/v1/sessions/${id}/fork`, { at, id: child })).status).toBe(201)
    expect(await tree(child)).toEqual({ 'a.txt': 'a v1', 'src/b.txt': 'b v1' })
    expect(await blobRows(env.SESSIONS.getByName(child))).toBe(0)

    expect((await put(child, 'child.txt', 'mine')).status).toBe(200)
    expect((await put(child, 'a.txt', 'a child')).status).toBe(200)
    expect((await put(id, 'parent.txt', 'theirs')).status).toBe(200)
    expect(await tree(child)).toEqual({ 'a.txt': 'a child', 'child.txt': 'mine', 'src/b.txt': 'b v1' })
    expect(await tree(id)).toEqual({ 'a.txt': 'a v2', 'parent.txt': 'theirs', 'src/b.txt': 'b v1' })

    // A fork of the fork reads through two generations.
    const atChild = await restPoint(child)
    const grandchild = uniqueName('ws-fork2')
    expect((await postJson(`/v1/sessions/${child}/fork`, { at: atChild, id: grandchild })).status).toBe(201)
    expect(await tree(grandchild)).toEqual({ 'a.txt': 'a child', 'child.txt': 'mine', 'src/b.txt': 'b v1' })
  })

  it('truncation takes the tree back with the conversation', async () => {
    const { id } = await newSession('ws-truncate')
    expect((await api(`/v1/sessions/${id}/config`, { method: 'PUT', headers: { 'content-type': 'application/json' }, body: JSON.stringify({ permission: { rules: [{ tool: 'write', action: 'allow' }] } }) })).status).toBe(200)
    expect((await put(id, 'a.txt', 'before')).status).toBe(200)
    const at = await restPoint(id)
    await restPoint(id, [`/tool write ${JSON.stringify({ path: 'a.txt', content: 'after' })}`, `/tool write ${JSON.stringify({ path: 'new/b.txt', content: 'new' })}`].join('\n'))
    expect(await tree(id)).toEqual({ 'a.txt': 'after', 'new/b.txt': 'new' })
    const res = await postJson(`/v1/sessions/${id}/truncate`, { at })
    expect(res.status).toBe(200)
    expect(await tree(id)).toEqual({ 'a.txt': 'before' })
    // The log keeps every version: the tree at the later sequence is still readable.
    const { truncated } = (await res.json()) as { truncated: number }
    const earlier = await (await api(`/v1/sessions/${id}/workspace/file?path=new/b.txt&at=${truncated - 1}`)).text()
    expect(earlier).toBe('new')
  })
})
