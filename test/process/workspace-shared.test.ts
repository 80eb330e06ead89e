/**
 * Workspaces over a real `wrangler dev`, through the typed client from Node:
 * - an orchestration created with `workspace: 'shared'` runs a plan on the local model where
 *   package b (after a) reads what package a wrote; a third package writing outside its declared
 *   writes is refused, and nothing of it is written;
 * - the client's uploads stream: a `ReadableStream`, an async iterable and a `Blob` arrive whole;
 *   a stream that fails half-way writes nothing and its error says it cannot be sent again, and
 *   the same stream offered again is refused before any request.
 */
import { afterAll, beforeAll, describe, expect, it } from 'vitest'
import { NeuronApiError, NeuronClient, type Stored } from '../../client/index.ts'
import { devToken, startWrangler, type Wrangler } from '../support/wrangler.ts'

const line = (beat: string, tool: string, input: unknown) => `/beat ${beat} /tool ${tool} ${JSON.stringify(input)}`

describe('workspaces over a real wrangler dev', () => {
  let dev: Wrangler
  let neuron: NeuronClient
  beforeAll(async () => {
    dev = await startWrangler()
    neuron = new NeuronClient({ url: dev.url, token: await devToken('ws-shared') })
    await neuron.config.put({ permission: { rules: [{ tool: 'write', action: 'allow' }] } })
  })
  afterAll(async () => dev?.stop())

  it("an orchestration's packages share its workspace: b reads what a wrote; an undeclared write is refused", async () => {
    const plan = [
      { id: 'a', instructions: [line('declare', 'declare', { writes: ['workspace:docs/**'] }), line('execute', 'write', { path: 'docs/plan.md', content: 'step one' }), line('execute', 'report', { result: 'a' })].join('\n') },
      { id: 'b', needs: ['a'], instructions: [line('declare', 'declare', { reads: ['workspace:docs/plan.md'] }), line('execute', 'read', { path: 'docs/plan.md' }), line('execute', 'report', { result: 'b' })].join('\n') },
      { id: 'c', needs: ['a'], instructions: [line('declare', 'declare', { writes: ['workspace:out/**'] }), line('execute', 'write', { path: 'docs/plan.md', content: 'overwritten' }), line('execute', 'report', { result: 'c' })].join('\n') },
    ]
    const run = await neuron.createOrchestration({ id: 'shared-ws', goal: 'share a workspace', plan, workspace: 'shared' })
    const deadline = Date.now() + 90_000
    let view = await run.view()
    while (view.status === 'running') {
      if (Date.now() > deadline) throw new Error(`still running: ${JSON.stringify(view)}`)
      await new Promise((r) => setTimeout(r, 200))
      view = await run.view()
    }
    expect(view).toMatchObject({ status: 'completed', workspace: 'shared' })
    const outcome = async (pkg: string, tool: string) => {
      const session = neuron.session(view.packages.find((p) => p.id === pkg)!.session!)
      const events = (await session.history({ limit: 1000 })).items as Stored[]
      const called = events.find((e) => e.type === 'session.next.tool.called' && (e.payload as { name: string }).name === tool)!
      const id = (called.payload as { toolCallId: string }).toolCallId
      return events.find((e) => /^session\.next\.tool\.(succeeded|failed)$/.test(e.type) && (e.payload as { toolCallId: string }).toolCallId === id)!.payload as { content?: string; error?: { code: string } }
    }
    expect(JSON.parse((await outcome('b', 'read')).content!)).toMatchObject({ path: 'docs/plan.md', text: 'step one' })
    expect((await outcome('c', 'write')).error?.code).toBe('WORKSPACE_WRITE_UNDECLARED')
    // The shared tree holds a's write alone, read back through the client; its one change names a.
    expect((await run.workspace.read('docs/plan.md')).text).toBe('step one')
    expect((await run.workspace.list()).entries.map((e) => e.path)).toEqual(['docs/plan.md'])
    const changes = (await run.history({ address: 'workspace' })).items as Stored[]
    expect(changes.map((e) => [e.type, (e.payload as { package: string }).package])).toEqual([['workspace.changed', 'a']])
  })

  it('uploads stream from a ReadableStream, an async iterable and a Blob; a failed stream writes nothing and is not sent twice', async () => {
    const session = await neuron.createSession({ id: 'ws-stream' })
    const encoder = new TextEncoder()
    const chunks = ['one ', 'two ', 'three']
    const stream = new ReadableStream<Uint8Array>({
      start(controller) {
        for (const chunk of chunks) controller.enqueue(encoder.encode(chunk))
        controller.close()
      },
    })
    await session.workspace.upload('from-stream.txt', stream)
    async function* generated() {
      for (const chunk of chunks) yield encoder.encode(chunk)
    }
    await session.workspace.upload('from-iterable.txt', generated())
    await session.workspace.upload('from-blob.txt', new Blob(chunks))
    for (const path of ['from-stream.txt', 'from-iterable.txt', 'from-blob.txt']) expect((await session.workspace.read(path)).text).toBe('one two three')

    // A stream that fails half-way: nothing is written, and the error says the body cannot be replayed.
    const failing = new ReadableStream<Uint8Array>({
      pull(controller) {
        controller.enqueue(encoder.encode('half '))
        controller.error(new Error('the source broke'))
      },
    })
    const error = await session.workspace.upload('broken.txt', failing).catch((e: unknown) => e)
    expect(error).toBeInstanceOf(NeuronApiError)
    expect((error as NeuronApiError).details).toMatchObject({ replayable: false })
    expect((error as NeuronApiError).retryable).toBe(false)
    expect((await session.workspace.list()).entries.map((e) => e.path)).toEqual(['from-blob.txt', 'from-iterable.txt', 'from-stream.txt'])
    // The consumed stream offered again is refused before any request.
    const again = await session.workspace.upload('from-stream.txt', stream).catch((e: unknown) => e)
    expect(again).toMatchObject({ code: 'UPLOAD_BODY_USED', details: { replayable: false } })
    // Bytes are replayable: sending the same again is safe and records no change.
    const bytes = encoder.encode('one two three')
    expect((await session.workspace.upload('from-blob.txt', bytes)).changes).toEqual([])
  })
})
