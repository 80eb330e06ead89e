/**
 * The typed client's orchestration, graph, memory and config surfaces, and
 * `neuron run`, against a real `wrangler dev` (orchestration events through a
 * TCP proxy the test cuts mid-run): each method reaches its route and answers
 * the server's shapes, errors arrive as `NeuronApiError` with the server's code.
 */
import { mkdtempSync, writeFileSync } from 'node:fs'
import { tmpdir } from 'node:os'
import { join } from 'node:path'
import { afterAll, beforeAll, describe, expect, it } from 'vitest'
import { NeuronApiError, NeuronClient, type Stored } from '../../client/index.ts'
import { runCli } from '../support/cli.ts'
import { type Proxy, startProxy } from '../support/proxy.ts'
import { devToken, startWrangler, type Wrangler } from '../support/wrangler.ts'

/** Instructions the local model runs as an agent: declare, work `ms`, report. */
const work = (name: string, ms: number) =>
  [`/beat declare /tool declare {"writes":["file:${name}"]}`, `/beat execute /slow ${ms}`, '/beat execute /tokens 20', `/beat execute /tool report {"result":"${name} done"}`].join('\n')

describe('client surfaces against a real wrangler dev', () => {
  let dev: Wrangler
  let proxy: Proxy
  let neuron: NeuronClient
  beforeAll(async () => {
    dev = await startWrangler({ vars: { CREDENTIALS_SECRET: 'process-test-credentials-secret-0123' } })
    proxy = await startProxy(dev.port)
    neuron = new NeuronClient({ url: proxy.url, token: await devToken('surfaces') })
  })
  afterAll(async () => {
    await proxy?.close()
    await dev?.stop()
  })

  it('orchestrations: create, follow across a dropped connection with no event skipped or doubled, view, history', async () => {
    const plan = [
      { id: 'a', instructions: work('a', 0) },
      { id: 'b', needs: ['a'], instructions: work('b', 400) },
    ]
    const run = await neuron.createOrchestration({ goal: 'two packages', plan })
    expect(run.created).toMatchObject({ id: run.id, status: 'running', planned: true })
    const seqs: number[] = []
    let dropped = false
    let reconnects = 0
    for await (const frame of run.events({ onReconnect: () => reconnects++ })) {
      if (frame.kind !== 'event') continue
      seqs.push(frame.envelope.seq)
      if (!dropped && frame.envelope.type === 'orchestration.package.assigned') dropped = proxy.drop() > 0
      if (frame.envelope.type === 'orchestration.finished') break
    }
    expect(dropped).toBe(true)
    expect(reconnects).toBeGreaterThan(0)
    const view = await run.view()
    expect(view.status).toBe('completed')
    expect(view.packages.map((p) => [p.id, p.beat, p.result])).toEqual([['a', 'reported', 'a done'], ['b', 'reported', 'b done']])
    const all: Stored[] = []
    for (let after: number | null = 0; after !== null; ) {
      const page = await run.history({ after, limit: 5 })
      all.push(...(page.items as Stored[]))
      after = page.next
    }
    // Followed = stored: every sequence once, in order, none missing.
    expect(seqs).toEqual(all.map((e) => e.seq).slice(0, seqs.length))
    expect(new Set(seqs).size).toBe(seqs.length)
    expect(await run.cancel()).toEqual({ cancelled: [], entry: null })
    const missing = await neuron.orchestration('no-such-run').view().catch((e: unknown) => e)
    expect(missing).toBeInstanceOf(NeuronApiError)
    expect(missing).toMatchObject({ code: 'ORCHESTRATION_NOT_FOUND', status: 404 })
  })

  it('graph: nodes, edges, fold, neighbours, paths, prune; memory: remember, recall, pinned, forget', async () => {
    const graph = neuron.graph()
    const ada = await graph.putNode({ kind: 'person', id: 'ada', text: 'Ada Lovelace' })
    expect(ada).toMatchObject({ created: true, node: { address: 'node.person.ada', text: 'Ada Lovelace' } })
    expect((await graph.putNode({ kind: 'person', id: 'ada', text: 'Ada Lovelace' })).created).toBe(false)
    await graph.putNode({ kind: 'task', id: 'engine' })
    const linked = await graph.link({ source: 'node.task.engine', target: 'node.person.ada', type: 'regards' })
    expect(linked.duplicate).toBe(false)
    expect((await graph.node('node.person.ada')).current.map((e) => e.id)).toEqual([linked.edge.id])
    expect((await graph.neighbours('node.task.engine', { direction: 'out' })).items.map((e) => e.target)).toEqual(['node.person.ada'])
    expect((await graph.paths('node.task.engine')).items.map((r) => r.address)).toContain('node.person.ada')
    const pruned = await graph.prune(linked.edge.id, 'not about Ada after all')
    expect(pruned.retired).toMatchObject({ how: 'pruned', reason: 'not about Ada after all' })
    expect((await graph.edge(linked.edge.id)).retired?.how).toBe('pruned')
    const unknown = await graph.node('node.person.nobody').catch((e: unknown) => e)
    expect(unknown).toMatchObject({ code: 'UNKNOWN_NODE', status: 404 })

    const memory = neuron.memory()
    const { memory: remembered, duplicate } = await memory.remember({ text: 'Ada prefers metric units', pinned: true })
    expect(duplicate).toBe(false)
    expect((await memory.recall({ query: 'metric' })).map((m) => m.address)).toEqual([remembered.address])
    expect((await memory.pinned()).map((m) => m.text)).toEqual(['Ada prefers metric units'])
    const forgotten = await memory.forget({ address: remembered.address, reason: 'outdated' })
    expect(forgotten.forgotten.retired?.how).toBe('pruned')
    expect(await memory.recall({ query: 'metric' })).toEqual([])
    const invalid = await memory.recall({ query: '' }).catch((e: unknown) => e)
    expect(invalid).toMatchObject({ code: 'INVALID_REQUEST', status: 400 })
  })

  it('config: the document with ETags, a lost update refused, session overrides, schema, write-only credentials', async () => {
    const config = neuron.config
    expect(await config.get()).toEqual({ version: 0, etag: '"v0"', document: {} })
    const first = await config.put({ instructions: ['Answer briefly.'] }, { ifMatch: '"v0"' })
    expect(first).toMatchObject({ etag: `"v${first.version}"`, document: { instructions: ['Answer briefly.'] } })
    const stale = await config.put({ instructions: ['Answer at length.'] }, { ifMatch: '"v0"' }).catch((e: unknown) => e)
    expect(stale).toMatchObject({ code: 'CONFIG_VERSION_MISMATCH', status: 412 })
    expect((await config.get()).document).toEqual({ instructions: ['Answer briefly.'] })
    expect(await config.schema()).toMatchObject({ type: 'object', properties: expect.objectContaining({ instructions: expect.any(Object) }) })

    const session = await neuron.createSession({ title: 'overrides' })
    const overrides = neuron.sessionConfig(session.id)
    expect((await overrides.get()).version).toBe(0)
    expect((await overrides.put({ instructions: ['Answer in French.'] })).document).toEqual({ instructions: ['Answer in French.'] })

    expect(await config.credentials()).toEqual([])
    expect(await config.setCredential('anthropic', 'sk-ant-test-key')).toMatchObject({ provider: 'anthropic', setAt: expect.any(String) })
    const listed = await config.credentials()
    expect(listed.map((c) => c.provider)).toEqual(['anthropic'])
    expect(JSON.stringify(listed)).not.toContain('sk-ant-test-key')
    expect(await config.deleteCredential('anthropic')).toEqual({ provider: 'anthropic', deleted: true })
    expect(await config.setCredential('nope', 'x').catch((e: unknown) => e)).toMatchObject({ status: 400 })
  })

  describe('neuron run', () => {
    const dir = mkdtempSync(join(tmpdir(), 'neuron-run-'))
    const env = { ...process.env, NEURON_CONFIG: join(dir, 'config.json'), NO_COLOR: '' }
    const cli = (args: string[]) => runCli(args, { env })
    const planFile = (name: string, body: unknown) => {
      const file = join(dir, name)
      writeFileSync(file, JSON.stringify(body))
      return file
    }

    it('prints one progress line per package change, then the outcome; exit 0 when completed', async () => {
      expect((await cli(['login', '--url', proxy.url, '--token', await devToken('run')])).status).toBe(0)
      const file = planFile('ok.json', { goal: 'two', plan: [{ id: 'first', instructions: work('first', 0) }, { id: 'second', needs: ['first'], instructions: work('second', 600) }] })
      const out = await cli(['run', file])
      expect(out.stderr).toBe('')
      expect(out.status).toBe(0)
      const lines = out.stdout.trim().split('\n')
      console.log(`neuron run:\n${out.stdout}`)
      expect(lines[0]).toMatch(/^orchestration \S+: two$/)
      expect(lines.at(-1)).toMatch(/^completed \(all 2 packages reported\) {2}\d+ tok \$\d+\.\d{4}$/)
      // A line whenever a package's beat or burn changed as the view showed it, ending reported;
      // the second package works 600 ms, long enough to be seen executing.
      const beatsOf = (pkg: string) => lines.filter((l) => l.startsWith(`${pkg} `)).map((l) => l.split(/\s+/)[1])
      expect(beatsOf('first')[0]).toMatch(/^(waiting|assigned)$/)
      expect(beatsOf('second')[0]).toBe('waiting')
      expect(beatsOf('second')).toContain('executing')
      for (const pkg of ['first', 'second']) expect(beatsOf(pkg).at(-1)).toBe('reported')
      const packageLines = lines.filter((l) => /^(first|second) /.test(l))
      expect(new Set(packageLines).size).toBe(packageLines.length)
      expect(out.stdout).not.toContain('\x1b[')
    })

    it('--json: one object per change and the outcome; a failed package exits 1; bad files exit 2', async () => {
      const file = planFile('fail.json', { goal: 'fails', maxAttempts: 1, plan: [{ id: 'doomed', instructions: '/beat declare /tool declare {}\n/beat execute /fail 400 the work cannot be done' }] })
      const out = await cli(['run', file, '--json'])
      const objects = out.stdout.trim().split('\n').map((l) => JSON.parse(l) as Record<string, unknown>)
      expect(objects.at(-1)).toMatchObject({ status: 'failed' })
      expect(objects.filter((o) => o.package === 'doomed').at(-1)).toMatchObject({ beat: 'failed' })
      expect(out.status).toBe(1)
      expect(await cli(['run', join(dir, 'missing.json')])).toMatchObject({ status: 2, stderr: expect.stringMatching(/^neuron: cannot read .*missing\.json/) })
      const bad = await cli(['run', planFile('cycle.json', { goal: 'cycle', plan: [{ id: 'x', needs: ['y'], instructions: 'a' }, { id: 'y', needs: ['x'], instructions: 'b' }] })])
      expect(bad.status).toBe(1)
      expect(bad.stderr).toMatch(/^neuron: [A-Z_]+: /)
      expect(bad.stderr).not.toMatch(/at .*\.ts:\d+/)
    })
  })
})
