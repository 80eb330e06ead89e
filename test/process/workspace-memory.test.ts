/**
 * A 10,000-file workspace in a real `wrangler dev` process: uploaded as tar archives, then listed
 * page by page through the route, read, globbed and grepped through the tools the local model calls.
 * A deployed isolate has 128 MB and the tree may hold 20,000 files, so nothing may hold the whole
 * tree: the isolate's live heap (after a full GC, through the inspector, as
 * session-memory.test.ts measures it) must stay flat from the empty workspace to the full one, and
 * while each walk of the whole tree runs. The figures are printed for docs/benchmarks.md; the
 * assertions are bounds, and the whole test is bounded in files and time.
 */
import { afterAll, beforeAll, describe, expect, it } from 'vitest'
import { tarStream } from '../../objects/workspace/tar.ts'
import { inspectorOf, type Inspector } from '../support/inspector.ts'
import { devToken, startWrangler, type Wrangler } from '../support/wrangler.ts'

const FILES = 10_000
/** Files per tar archive (each upload is one operation; ten of them fill the tree). */
const BATCH = 1_000
const ID = 'ws-memory'

describe('a 10,000-file workspace in a real wrangler dev process', () => {
  let dev: Wrangler
  let inspector: Inspector
  let auth: Record<string, string>
  beforeAll(async () => {
    dev = await startWrangler()
    inspector = inspectorOf(dev.inspectorPort, dev.url)
    auth = { authorization: `Bearer ${await devToken()}` }
  })
  afterAll(async () => {
    inspector?.close()
    await dev?.stop()
  })
  const call = (path: string, init: RequestInit = {}) => fetch(`${dev.url}${path}`, { ...init, headers: { ...auth, ...(init.headers as Record<string, string>) } })
  const json = (body: unknown): RequestInit => ({ method: 'POST', headers: { 'content-type': 'application/json' }, body: JSON.stringify(body) })
  /** File `i`: 100 directories of 100 files, each a few lines, one of every 500 holding a needle. */
  const path = (i: number) => `src/d${String(Math.floor(i / 100)).padStart(2, '0')}/f${String(i % 100).padStart(2, '0')}.txt`
  const text = (i: number) => `file ${i}\n${'the quick brown fox jumps over the lazy dog\n'.repeat(4)}${i % 500 === 0 ? 'needle here\n' : ''}`
  const archive = async (from: number, to: number) =>
    new Uint8Array(
      await new Response(
        tarStream(
          (async function* () {
            for (let i = from; i < to; i++) yield { path: path(i), bytes: new TextEncoder().encode(text(i)) }
          })(),
        ),
      ).arrayBuffer(),
    )

  /** Runs `work` while sampling the live heap every 250 ms; the largest sample, and the work's result. */
  async function sampled<T>(work: () => Promise<T>): Promise<{ result: T; peak: number; samples: number }> {
    let done = false
    let peak = 0
    let samples = 0
    const sampling = (async () => {
      while (!done) {
        // Under a loaded machine wrangler's proxy can leave a sample unanswered while the walk keeps
        // the isolate busy; such a sample is skipped. The heap read after each walk stays strict.
        const mb = await inspector.liveHeapMb().catch(() => null)
        if (mb !== null) (peak = Math.max(peak, mb)), samples++
        await new Promise((r) => setTimeout(r, 250))
      }
    })()
    try {
      return { result: await work(), peak, samples }
    } finally {
      done = true
      await sampling
    }
  }

  /** A prompt calling one tool; resolves with that call's parsed output once it has settled. */
  async function tool(name: string, input: unknown): Promise<Record<string, unknown>> {
    const last = await lastSeq()
    expect((await call(`/v1/sessions/${ID}/prompt`, json({ text: `/tool ${name} ${JSON.stringify(input)}` }))).status).toBe(202)
    const deadline = Date.now() + 120_000
    for (;;) {
      const page = (await (await call(`/v1/sessions/${ID}/history?after=${last}&limit=1000`)).json()) as { items: { type: string; payload: unknown }[] }
      const settled = page.items.find((e) => e.type === 'session.next.tool.succeeded' || e.type === 'session.next.tool.failed')
      if (settled && page.items.some((e) => e.type === 'session.next.drain.ended')) {
        const payload = settled.payload as { content?: string; error?: { code: string } }
        if (payload.error) throw new Error(`${name} failed: ${payload.error.code}`)
        return JSON.parse(payload.content!) as Record<string, unknown>
      }
      if (Date.now() > deadline) throw new Error(`${name} did not settle in 120 s`)
      await new Promise((r) => setTimeout(r, 100))
    }
  }
  /** The last sequence of the session's history. */
  async function lastSeq(): Promise<number> {
    let after = 0
    for (;;) {
      const page = (await (await call(`/v1/sessions/${ID}/history?after=${after}&limit=1000`)).json()) as { items: { seq: number }[]; next: number | null }
      after = page.items.at(-1)?.seq ?? after
      if (page.next === null) return after
    }
  }

  it('uploading, listing, reading, globbing and grepping 10,000 files keeps the live heap flat', { timeout: 600_000 }, async () => {
    expect((await call('/v1/sessions', json({ id: ID }))).status).toBe(201)
    // Warm the code paths on a tiny tree first, so the first sample is not the code loading.
    expect((await call(`/v1/sessions/${ID}/workspace/file?path=warm.txt`, { method: 'PUT', body: 'needle warm\n' })).status).toBe(200)
    await tool('grep', { pattern: 'needle' })
    await tool('glob', { pattern: '*.txt' })
    await tool('read', { path: 'warm.txt' })
    const figures: string[] = []
    const empty = await inspector.liveHeapMb()
    figures.push(`1 file: live heap ${empty.toFixed(1)} MiB`)

    const uploadStarted = Date.now()
    const uploadPeak = await sampled(async () => {
      for (let from = 0; from < FILES; from += BATCH) {
        const res = await call(`/v1/sessions/${ID}/workspace/tar`, { method: 'PUT', body: await archive(from, from + BATCH) })
        expect(res.status, await res.clone().text()).toBe(200)
      }
    })
    const uploadMs = Date.now() - uploadStarted
    const full = await inspector.liveHeapMb()
    figures.push(`upload of ${FILES} files in tar archives of ${BATCH}: ${uploadMs} ms; live heap ${full.toFixed(1)} MiB (peak sampled ${uploadPeak.peak.toFixed(1)} MiB, ${uploadPeak.samples} samples)`)

    // The route, page by page: every path once, in order.
    const listStarted = Date.now()
    const listing = await sampled(async () => {
      let after: string | undefined
      let count = 0
      let previous = ''
      for (;;) {
        const page = (await (await call(`/v1/sessions/${ID}/workspace?limit=1000${after === undefined ? '' : `&after=${encodeURIComponent(after)}`}`)).json()) as { entries: { path: string }[]; next: string | null }
        for (const entry of page.entries) {
          expect(entry.path > previous).toBe(true)
          previous = entry.path
          count++
        }
        if (page.next === null) return count
        after = page.next
      }
    })
    expect(listing.result).toBe(FILES + 1)
    figures.push(`list through the route, ${listing.result} entries in pages of 1,000: ${Date.now() - listStarted} ms; peak ${listing.peak.toFixed(1)} MiB`)

    const started = Date.now()
    const read = await sampled(() => tool('read', { path: path(FILES - 1) }))
    expect(read.result).toMatchObject({ path: path(FILES - 1), lines: 5, text: expect.stringContaining(`file ${FILES - 1}`) })
    figures.push(`read of the last file: ${Date.now() - started} ms; peak ${read.peak.toFixed(1)} MiB`)

    let at = Date.now()
    // A glob that matches nothing walks every path of the tree.
    const none = await sampled(() => tool('glob', { pattern: '**/*.md' }))
    expect(none.result).toEqual({ paths: [], truncated: false, next: null })
    const some = await tool('glob', { pattern: 'src/d99/*.txt' })
    expect(some.paths).toHaveLength(100)
    figures.push(`glob over the whole tree (no match, every path walked): ${Date.now() - at} ms; peak ${none.peak.toFixed(1)} MiB`)

    at = Date.now()
    // A grep reads every file: 10,000 files, 20 of them (and warm.txt) with the needle.
    const grep = await sampled(() => tool('grep', { pattern: 'needle', fixed: true }))
    expect(grep.result).toMatchObject({ truncated: false, next: null })
    expect((grep.result.hits as unknown[]).length).toBe(FILES / 500 + 1)
    figures.push(`grep over every file: ${Date.now() - at} ms; peak ${grep.peak.toFixed(1)} MiB`)

    const after = await inspector.liveHeapMb()
    figures.push(`after every walk: live heap ${after.toFixed(1)} MiB`)
    console.log(figures.join('\n'))
    // 10,000 index rows live in SQLite, not the heap: the full tree may add at most 4 MiB to what an
    // empty workspace keeps, and no walk of it may hold more than 16 MiB at once (one page of entries,
    // one search page's bytes: at most 4 MiB, and the sample's own timing).
    expect(full - empty).toBeLessThan(4)
    expect(after - empty).toBeLessThan(4)
    for (const peak of [listing.peak, read.peak, none.peak, grep.peak]) expect(peak - empty).toBeLessThan(16)
    expect(uploadPeak.samples + listing.samples + read.samples + none.samples + grep.samples).toBeGreaterThan(0)
  })
})
