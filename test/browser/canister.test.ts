/**
 * App backends from the shell, in real Chromium against a real `wrangler dev`: an app reaches its
 * own backend on the same-app wire (canister.query_self / update_self) as the signed-in person;
 * canister.call_dialog runs another app's update only after the person agrees in the trusted
 * page's dialog (refusal: CONSENT_DENIED, nothing called); a connection's secret reaches only the
 * app's live background, never another app, a tile or the audit; a derived key is the same across
 * reloads and different across apps. The packages are installed for the dev person through the API.
 */
import type { Frame } from 'playwright-core'
import { afterAll, beforeAll, describe, expect, it } from 'vitest'
import { NeuronClient } from '../../client/index.ts'
import { type EncryptedKey, wrappingKey } from '../../objects/apps/vetkeys.ts'
import { COUNTER, pkg } from '../fixtures/apps/packages.ts'
import { type PageGestures, gestures } from './support/gestures.ts'
import { audit, frameOf, install, openShell, openTile, type Shell, signInOverInstalls, waitForEndpoint } from './support/shell.ts'

/** The shell's side of the two apps: pages that use the SDK (`fixture.sdk`) or send raw actions (`fixture.raw`). */
const COUNTER_APP = { id: 'counter', version: '1.0.0', title: 'Counter', entries: { tile: '/fixtures/backend/tile', background: '/fixtures/backend/background' }, tools: [], vetkeys: ['notes/v1'] }
const RIVAL_APP = { ...COUNTER_APP, id: 'rival', title: 'Rival' }
/** Keeps an attachment: the backend receives it as base64url text in `input.attachment`. */
const KEEP = `export default {
  async ping() { return { pong: true } },
  async keep(input, state) {
    const bytes = Uint8Array.from(atob(input.attachment.replaceAll('-', '+').replaceAll('_', '/')), (c) => c.charCodeAt(0))
    await state.put('kept', input.attachment)
    return { name: input.name, bytes: bytes.length, sum: bytes.reduce((a, b) => a + b, 0) }
  },
}`
const RIVAL = pkg('rival', KEEP, {
  ping: { kind: 'query' },
  keep: { kind: 'update', input: { type: 'object', properties: { name: { type: 'string' }, attachment: { type: 'string' } }, required: ['name', 'attachment'], additionalProperties: false } },
})

type Outcome = { ok?: any; error?: { code: string; message: string; retryAfterMs?: number } }
let shell: Shell
let server: NeuronClient
let g: PageGestures
let tileId: string
let rivalTileId: string
let counterTile: Frame
let counterBg: Frame
let rivalTile: Frame
let rivalBg: Frame

const raw = (frame: Frame, action: string, payload: unknown): Promise<Outcome> => frame.evaluate(([a, p]) => (globalThis as any).fixture.raw(a, p), [action, payload] as const)
/** Calls `fixture.sdk.<path>(...args)` in the frame, as an app would; the BusError comes back as `{ error }`. */
const sdk = (frame: Frame, path: string, ...args: unknown[]): Promise<Outcome> =>
  frame.evaluate(
    ([p, a]) => {
      const fn = p.split('.').reduce((v: any, k: string) => v[k], (globalThis as any).fixture.sdk)
      return fn(...a).then((ok: unknown) => ({ ok }), (e: { code: string; message: string }) => ({ error: { code: e.code, message: e.message } }))
    },
    [path, args] as const,
  )
const kernelTool = (frame: Frame, name: string, args: unknown) => raw(frame, 'tools.call', { target: 'kernel', name, arguments: args })
/** Starts a kernel tool call that waits for the person; its answer lands in `fixture.pending`. */
const startKernelTool = (frame: Frame, name: string, args: unknown) =>
  frame.evaluate(([n, a]) => void (globalThis as any).fixture.raw('tools.call', { target: 'kernel', name: n, arguments: a }).then((o: unknown) => ((globalThis as any).fixture.pending = o)), [name, args] as const)
const pendingAnswer = async (frame: Frame): Promise<Outcome> => {
  await frame.waitForFunction(() => (globalThis as any).fixture.pending, undefined, { polling: 20, timeout: 30_000 })
  return frame.evaluate(() => {
    const answer = (globalThis as any).fixture.pending
    ;(globalThis as any).fixture.pending = undefined
    return answer
  })
}
const count = async () => (await server.apps.app('counter').call<{ count: number }>('count', {})).output.count
const dialog = () => shell.page.locator('#backend-dialog[open]')

/** Runs the fixtures' frontends for the counter and rival apps (their backends are installed on the server). */
async function runFixtures() {
  await install(shell.page, COUNTER_APP)
  await install(shell.page, RIVAL_APP)
  await waitForEndpoint(shell.page, 'app:counter:background')
  await waitForEndpoint(shell.page, 'app:rival:background')
  tileId = await openTile(shell.page, 'counter')
  rivalTileId = await openTile(shell.page, 'rival')
  ;[counterTile, counterBg, rivalTile, rivalBg] = await Promise.all([frameOf(shell.page, tileId), frameOf(shell.page, 'app:counter:background'), frameOf(shell.page, rivalTileId), frameOf(shell.page, 'app:rival:background')])
  await Promise.all([counterTile, counterBg, rivalTile].map((f) => f.evaluate(() => (globalThis as any).fixture.ready)))
}

/** Signs the dev person in, then runs the fixtures' frontends over the installed backends (support/shell.ts). */
async function signIn() {
  await signInOverInstalls(shell.page, ['counter', 'rival'])
  await runFixtures()
}

beforeAll(async () => {
  shell = await openShell({ demo: false })
  const { token } = (await (await fetch(`${shell.dev.url}/v1/dev/token`, { method: 'POST', headers: { 'x-neuron-dev-login': '1' } })).json()) as { token: string }
  server = new NeuronClient({ url: shell.dev.url, token })
  for (const p of [COUNTER, RIVAL]) await server.apps.install((await server.apps.upload(p as never)).hash)
  await runFixtures()
  g = await gestures(shell.page)
}, 120_000)
afterAll(async () => {
  await g?.close()
  await shell?.close()
})
/** The person clicks in the tile of endpoint `id`: a dialog its app asks for is the person's to see (dialog-gate.ts). */
async function personUses(id: string) {
  await g.quiet()
  await g.clickFrame(id)
}
/** The person dismissed an app's dialog a moment ago; the test lets the remembered back-off pass. */
const forgetDismissals = (app: string) => shell.page.evaluate((a) => (window as any).neutron.kernel.dialogs.forget(a), app)

describe('app backends from the shell', () => {
  it('without a signed-in person every backend action answers SIGN_IN_REQUIRED', async () => {
    expect(await raw(counterBg, 'canister.query_self', { method: 'count', input: {} })).toMatchObject({ error: { code: 'SIGN_IN_REQUIRED' } })
    expect(await kernelTool(counterTile, 'canister.schema', { method: 'count' })).toMatchObject({ error: { code: 'SIGN_IN_REQUIRED' } })
    expect(await raw(counterBg, 'connections.list', {})).toMatchObject({ error: { code: 'SIGN_IN_REQUIRED' } })
    await signIn()
  })

  it("an app reaches its own backend on the same-app wire: queries read, updates append, a query cannot run an update", async () => {
    expect(await sdk(counterTile, 'canister.updateSelf', 'increment', { by: 2 })).toEqual({ ok: { output: { count: 2 } } })
    expect(await sdk(counterBg, 'canister.querySelf', 'count', {})).toEqual({ ok: { output: { count: 2 } } })
    // query_self names an update: refused against the installed interface before anything runs.
    expect(await raw(counterTile, 'canister.query_self', { method: 'increment', input: { by: 1 } })).toMatchObject({ error: { code: 'PERMISSION_DENIED', message: expect.stringContaining('METHOD_KIND_MISMATCH') } })
    expect(await raw(counterTile, 'canister.update_self', { method: 'increment', input: { by: 'many' } })).toMatchObject({ error: { code: 'SCHEMA_VIOLATION' } })
    expect(await raw(counterTile, 'canister.query_self', { method: 'count', input: {}, schema: {} })).toMatchObject({ error: { code: 'BAD_REQUEST' } })
    expect(await count()).toBe(2)
    // The rival's own backend is its own: the same wire from it reaches rival, never counter.
    expect(await raw(rivalTile, 'canister.query_self', { method: 'count', input: {} })).toMatchObject({ error: { code: 'UNKNOWN_TOOL' } })
    // Not discoverable, not routable as a tool.
    const listed = await raw(counterTile, 'tools.list', { target: 'kernel' })
    const names = (listed.ok.tools as { name: string }[]).map((t) => t.name)
    expect(names).toEqual(expect.arrayContaining(['canister.schema', 'canister.call_dialog', 'backend_calls.request', 'backend_calls.list']))
    expect(names.filter((n) => /_self|connections|vetkeys/.test(n))).toEqual([])
    expect(await kernelTool(counterTile, 'canister.query_self', { method: 'count', input: {} })).toMatchObject({ error: { code: 'UNKNOWN_TOOL' } })
  })

  it('the same-app wire is attachment-aware: bytes beside *_self reach the backend as input.attachment, bounded', async () => {
    const kept = await rivalTile.evaluate(async () => {
      const bytes = Uint8Array.from({ length: 100_000 }, (_, i) => i % 251)
      const { canister } = (globalThis as any).fixture.sdk
      const answer = await canister.updateSelf('keep', { name: 'blob.bin' }, { attachment: bytes.buffer })
      return { answer, detached: bytes.buffer.byteLength === 0, expectedSum: Array.from({ length: 100_000 }, (_, i) => i % 251).reduce((a, b) => a + b, 0) }
    })
    expect(kept.detached).toBe(true)
    expect(kept.answer).toEqual({ output: { name: 'blob.bin', bytes: 100_000, sum: kept.expectedSum } })
    const refused = await rivalTile.evaluate(async () => {
      const { canister } = (globalThis as any).fixture.sdk
      const attempt = (input: unknown, bytes: number) => canister.updateSelf('keep', input, { attachment: new ArrayBuffer(bytes) }).then(() => 'ok', (e: { code: string }) => e.code)
      return { tooLarge: await attempt({ name: 'big' }, 160 * 1024 + 1), clash: await attempt({ name: 'x', attachment: 'mine' }, 8), notObject: await attempt('text', 8) }
    })
    expect(refused).toEqual({ tooLarge: 'ATTACHMENT_TOO_LARGE', clash: 'BAD_REQUEST', notObject: 'BAD_REQUEST' })
  })

  it('canister.schema is the installed interface, for the caller or a named app', async () => {
    const own = await kernelTool(counterTile, 'canister.schema', { method: 'increment' })
    expect(own.ok).toEqual({ app: 'counter', version: '1.0.0', method: 'increment', kind: 'update', input: (COUNTER.interface.methods.increment as any).input, output: (COUNTER.interface.methods.increment as any).output })
    expect((await kernelTool(rivalTile, 'canister.schema', { app: 'counter', method: 'count' })).ok).toMatchObject({ app: 'counter', kind: 'query' })
    expect(await kernelTool(rivalTile, 'canister.schema', { app: 'counter', method: 'nope' })).toMatchObject({ error: { code: 'UNKNOWN_TOOL' } })
    expect(await kernelTool(rivalTile, 'canister.schema', { app: 'absent', method: 'count' })).toMatchObject({ error: { code: 'NOT_FOUND' } })
  })

  it('canister.call_dialog: the trusted page draws the consent; refusal calls nothing, consent runs the update once', async () => {
    const before = await count()
    // Checked against the installed schema before anyone is asked.
    expect(await kernelTool(rivalTile, 'canister.call_dialog', { app: 'counter', method: 'increment', input: { by: 0 } })).toMatchObject({ error: { code: 'SCHEMA_VIOLATION' } })
    expect(await kernelTool(rivalTile, 'canister.call_dialog', { app: 'counter', method: 'count', input: {} })).toMatchObject({ error: { code: 'BAD_REQUEST' } })
    expect(await dialog().count()).toBe(0)

    // The dialog needs the person's gesture in the asking app: they are using its tile.
    await personUses(rivalTileId)
    await startKernelTool(rivalTile, 'canister.call_dialog', { app: 'counter', method: 'increment', input: { by: 5 } })
    await dialog().waitFor()
    expect(await dialog().locator('[data-consent-method]').textContent()).toBe('increment')
    expect(await dialog().locator('[data-consent-input]').textContent()).toBe('{"by":5}')
    expect(await dialog().textContent()).toContain('counter')
    // One dialog at a time.
    expect(await kernelTool(rivalBg, 'canister.call_dialog', { app: 'counter', method: 'increment', input: { by: 7 } })).toMatchObject({ error: { code: 'UI_BUSY', retryAfterMs: expect.any(Number) } })
    await shell.page.click('#backend-dialog [data-backend-decision="deny"]')
    expect(await pendingAnswer(rivalTile)).toMatchObject({ error: { code: 'CONSENT_DENIED' } })
    expect(await count()).toBe(before)
    // Denied, remembered: asked again at once, refused without a dialog.
    expect(await kernelTool(rivalTile, 'canister.call_dialog', { app: 'counter', method: 'increment', input: { by: 5 } })).toMatchObject({ error: { code: 'CONSENT_DENIED', message: expect.stringMatching(/dismissed/) } })
    expect(await dialog().count()).toBe(0)

    await forgetDismissals('rival')
    await personUses(rivalTileId)
    await startKernelTool(rivalTile, 'canister.call_dialog', { app: 'counter', method: 'increment', input: { by: 5 } })
    await shell.page.click('#backend-dialog [data-backend-decision="allow"]')
    expect(await pendingAnswer(rivalTile)).toEqual({ ok: { output: { count: before + 5 } } })
    expect(await count()).toBe(before + 5)
    expect(await dialog().count()).toBe(0)
  })

  it('canister.call_dialog naming another app, looped by a background with no gesture in its app: the dialog never opens', async () => {
    {
      await counterBg.evaluate(() => {
        const f = (globalThis as any).fixture
        f.loop = undefined
        setTimeout(async () => {
          const counts: Record<string, number> = {}
          for (const until = performance.now() + 5_000; performance.now() < until; await new Promise((r) => setTimeout(r, 5))) {
            const o = await f.raw('tools.call', { target: 'kernel', name: 'canister.call_dialog', arguments: { app: 'rival', method: 'keep', input: { name: 'n', attachment: 'AA' } } })
            const code = o.error?.code ?? 'ok'
            counts[code] = (counts[code] ?? 0) + 1
          }
          f.loop = counts
        }, 6_500)
      })
      await g.quiet()
      const opened: number[] = []
      const started = Date.now()
      while (Date.now() - started < 8_000) {
        if (await g.value<boolean>("document.querySelector('#backend-dialog').open")) {
          opened.push(Date.now() - started)
          await shell.page.keyboard.press('Escape')
        }
        await new Promise((r) => setTimeout(r, 20))
      }
      await expect.poll(() => counterBg.evaluate(() => (globalThis as any).fixture.loop), { timeout: 15_000 }).toBeTruthy()
      const counts = await counterBg.evaluate(() => (globalThis as any).fixture.loop)
      console.log(`[figures] canister.call_dialog looped by a background for 5 s without a gesture: dialog opened ${opened.length} times; answers ${JSON.stringify(counts)}`)
      expect(opened).toEqual([])
      expect(Object.keys(counts)).toEqual(['USER_ACTIVATION_REQUIRED'])
    }
  }, 60_000)

  it('backend_calls.request reserves an origin after consent and releases it without; backend_calls.list shows the app its own', async () => {
    await personUses(tileId)
    await startKernelTool(counterTile, 'backend_calls.request', { origin: 'https://api.example.com/v1/x' })
    await dialog().waitFor()
    expect(await dialog().locator('[data-consent-origin]').textContent()).toBe('https://api.example.com')
    await shell.page.click('#backend-dialog [data-backend-decision="allow"]')
    expect(await pendingAnswer(counterTile)).toMatchObject({ ok: { origin: 'https://api.example.com' } })
    expect((await kernelTool(counterBg, 'backend_calls.list', {})).ok.grants).toEqual([expect.objectContaining({ origin: 'https://api.example.com' })])
    expect((await kernelTool(rivalBg, 'backend_calls.list', {})).ok.grants).toEqual([])
    expect(await kernelTool(counterTile, 'backend_calls.request', { origin: 'ftp://files.example.com' })).toMatchObject({ error: { code: 'BAD_REQUEST' } })
    expect(await kernelTool(counterTile, 'backend_calls.request', { origin: 'https://api.example.com', release: true })).toMatchObject({ ok: { revoked: true } })
    expect((await server.apps.app('counter').grants())).toEqual([])
  })

  it("a connection's secret reaches only the app's live background: not a tile, not another app, not the audit", async () => {
    const secret = 'sk-live-7f3a9c1e-never-in-the-audit'
    expect(await sdk(counterBg, 'connections.set', 'mail', secret)).toMatchObject({ ok: { name: 'mail' } })
    expect(await sdk(counterBg, 'connections.get', 'mail')).toEqual({ ok: { name: 'mail', secret } })
    expect((await sdk(counterBg, 'connections.list')).ok.connections).toEqual([expect.objectContaining({ name: 'mail' })])
    // A tile of the same app cannot, even setting one (its refused payload is not summarized anywhere).
    const fromTile = 'sk-from-a-tile-also-never-in-the-audit'
    expect(await sdk(counterTile, 'connections.get', 'mail')).toMatchObject({ error: { code: 'PERMISSION_DENIED' } })
    expect(await raw(counterTile, 'connections.set', { name: 'mail', secret: fromTile })).toMatchObject({ error: { code: 'PERMISSION_DENIED' } })
    // Another app's background opens its own installation's connections only.
    expect(await raw(rivalBg, 'connections.get', { name: 'mail' })).toMatchObject({ error: { code: 'NOT_FOUND' } })
    // Not a tool: not callable through the kernel's tool path, nothing to route or watch progress of.
    expect(await kernelTool(counterBg, 'connections.get', { name: 'mail' })).toMatchObject({ error: { code: 'UNKNOWN_TOOL' } })
    const everything = JSON.stringify(await audit(shell.page))
    expect(everything).not.toContain(secret)
    expect(everything).not.toContain(fromTile)
    // The app-readable audit has none of the private refusals (only the tools.call attempt above).
    const readable = (await kernelTool(counterTile, 'audit.list', {})).ok.entries as { tool: string; code?: string }[]
    expect(readable.filter((e) => e.tool.startsWith('connections.') && e.code !== 'UNKNOWN_TOOL')).toEqual([])
    // The server's listing never carries it either.
    expect(JSON.stringify(await server.apps.app('counter').connections())).not.toContain(secret)
  })

  it('a derived key is the same across reloads and different across apps; undeclared paths, unfocused tiles refused', async () => {
    const key1 = await derive(counterBg, 'notes/v1')
    const rivalKey = await derive(rivalBg, 'notes/v1')
    expect(key1).toMatch(/^[0-9a-f]{64}$/)
    expect(rivalKey).not.toBe(key1)
    // Reload the counter's background: a new document, a new endpoint session, the same key.
    await shell.page.evaluate(() => {
      const kernel = (window as any).neutron.kernel
      kernel.reload(kernel.frameOf(kernel.endpoints.get('app:counter:background')))
    })
    await shell.page.waitForFunction(() => (window as any).neutron.kernel.endpoints.get('app:counter:background')?.session !== undefined, undefined, { timeout: 60_000 })
    const reloaded = await frameOf(shell.page, 'app:counter:background')
    await reloaded.waitForFunction(() => (globalThis as any).fixture?.raw, undefined, { polling: 50, timeout: 60_000 })
    expect(await derive(reloaded, 'notes/v1')).toBe(key1)
    // Only declared paths.
    expect(await deriveRaw(reloaded, 'other/path')).toMatchObject({ error: { code: 'PERMISSION_DENIED' } })
    // From a tile, only the one the person is using (focus that came with their gesture: no fresh click needed for a key).
    await shell.page.click('.brand')
    expect(await deriveRaw(counterTile, 'notes/v1')).toMatchObject({ error: { code: 'USER_ACTIVATION_REQUIRED', message: expect.stringMatching(/not the frame/) } })
    // Focus the page gives a tile without the person's gesture in it does not count either.
    await shell.page.evaluate((id) => (document.querySelector(`iframe[data-endpoint="${id}"]`) as HTMLIFrameElement).focus(), tileId)
    expect(await deriveRaw(counterTile, 'notes/v1')).toMatchObject({ error: { code: 'USER_ACTIVATION_REQUIRED' } })
    await personUses(tileId)
    expect(await derive(counterTile, 'notes/v1')).toBe(key1)
  })
})

async function transportPair() {
  const pair = (await crypto.subtle.generateKey({ name: 'ECDH', namedCurve: 'P-256' }, true, ['deriveBits'])) as CryptoKeyPair
  const jwk = await crypto.subtle.exportKey('jwk', pair.publicKey)
  return { privateKey: pair.privateKey, publicJwk: { kty: 'EC', crv: 'P-256', x: jwk.x, y: jwk.y } }
}

function deriveRaw(frame: Frame, derivationPath: string, publicJwk?: object): Promise<Outcome> {
  return raw(frame, 'vetkeys.derive', { derivationPath, transportPublicKey: publicJwk ?? { kty: 'EC', crv: 'P-256', x: 'A'.repeat(43), y: 'A'.repeat(43) } })
}

/** Derives through the frame's private port with a fresh transport key; opens it here, as the app would. */
async function derive(frame: Frame, derivationPath: string): Promise<string> {
  const { privateKey, publicJwk } = await transportPair()
  const answer = await deriveRaw(frame, derivationPath, publicJwk)
  if (!answer.ok) throw new Error(JSON.stringify(answer))
  const sealed = answer.ok as EncryptedKey
  const ephemeral = await crypto.subtle.importKey('jwk', sealed.ephemeralPublicKey, { name: 'ECDH', namedCurve: 'P-256' }, false, [])
  const key = await wrappingKey(privateKey, ephemeral, ['decrypt'])
  const fromB64 = (text: string) => Uint8Array.from(atob(text.replaceAll('-', '+').replaceAll('_', '/')), (ch) => ch.charCodeAt(0))
  const plain = await crypto.subtle.decrypt({ name: 'AES-GCM', iv: fromB64(sealed.iv), additionalData: new TextEncoder().encode(sealed.boundTo) }, key, fromB64(sealed.ciphertext))
  return [...new Uint8Array(plain)].map((b) => b.toString(16).padStart(2, '0')).join('')
}
