/**
 * An installed package's frontend files reach the shell's opaque app frames at
 * `/app-frames/<token>/<file>`: the token (in the person's install list) is the
 * only key, it names one person's package, and only while that person has it
 * installed. Files carry the sandbox CSP of every app page and are cacheable
 * (content-addressed). Anything else is the same 404, so nothing leaks.
 */
import { exports } from 'cloudflare:workers'
import { env } from 'cloudflare:workers'
import { beforeAll, describe, expect, it } from 'vitest'
import { frameBase } from '../../objects/apps/frame-files.ts'
import { APP_CSP } from '../../objects/apps/frame-policy.ts'
import { api } from '../support/api.ts'
import { COUNTER } from '../fixtures/apps/packages.ts'
import { errorOf, installed, person, send, upload, warm } from './support.ts'

/** A request with no credentials at all, as a sandboxed frame makes it. */
const frameGet = (path: string) => exports.default.fetch(`http://neuron${path}`)
const filesOf = async (as: string, app = 'counter'): Promise<string> => {
  const items = (await (await api('/v1/apps/installs', {}, as)).json()) as { items: { app: string; files: string }[] }
  return items.items.find((i) => i.app === app)!.files
}

describe('app frames', () => {
  beforeAll(() => warm(), 60_000)

  it('the install list gives each install the address of its files; a frame reads them there without a token', async () => {
    const ada = person('ada')
    const hash = await installed(COUNTER, ada)
    const base = await filesOf(ada)
    expect(base).toMatch(new RegExp(`^/app-frames/${hash}\\.[A-Za-z0-9_-]+\\.[A-Za-z0-9_-]{43}/$`))
    const res = await frameGet(`${base}index.html`)
    expect(res.status).toBe(200)
    expect(await res.text()).toBe((COUNTER.files as Record<string, string>)['index.html'])
    expect(res.headers.get('content-type')).toBe('text/html; charset=utf-8')
    expect(res.headers.get('content-security-policy')).toBe(APP_CSP)
    expect(res.headers.get('cache-control')).toBe('private, max-age=31536000, immutable')
    expect(res.headers.get('x-content-type-options')).toBe('nosniff')
  })

  it('a forged, altered or foreign token, a missing file, a path out of the package and an uninstalled package are all the same 404', async () => {
    const ada = person('ada')
    const bob = person('bob')
    const hash = await installed(COUNTER, ada)
    const base = await filesOf(ada)
    const token = base.split('/')[2]!
    // A changed MAC: the first character carries six bits of the tag, all of them used.
    const mac = token.split('.')[2]!
    const flipped = token.slice(0, -mac.length) + (mac[0] === 'A' ? 'B' : 'A') + mac.slice(1)
    // The same MAC written another way: the last character's two unused low bits set.
    const alphabet = 'ABCDEFGHIJKLMNOPQRSTUVWXYZabcdefghijklmnopqrstuvwxyz0123456789-_'
    const last = alphabet.indexOf(mac.at(-1)!)
    const aliased = token.slice(0, -1) + alphabet[(last & ~3) | (last & 3 ? 0 : 1)]
    const bobs = await frameBase(env.TICKET_SECRET!, bob, hash) // a valid MAC, but Bob never installed it
    const otherKey = await frameBase('another-deployment-secret-0123456789', ada, hash)
    for (const path of [`/app-frames/${flipped}/index.html`, `/app-frames/${aliased}/index.html`, `${bobs}index.html`, `${otherKey}index.html`, `${base}nope.html`, `${base}..%2F..%2Fv1%2Fme`, `/app-frames/${hash}/index.html`, `/app-frames/not-a-token/index.html`]) {
      const res = await frameGet(path)
      expect(res.status, path).toBe(404)
      expect((await errorOf(res)).code).toBe('APP_FILE_NOT_FOUND')
    }
    // Uninstalled: the same address stops serving.
    expect((await send('DELETE', '/v1/apps/installs/counter', undefined, ada)).status).toBe(200)
    expect((await frameGet(`${base}index.html`)).status).toBe(404)
  })

  it('an upgrade gives a new address (the new content id); the old one stops serving', async () => {
    const ada = person('ada')
    await installed(COUNTER, ada)
    const before = await filesOf(ada)
    const next = { ...COUNTER, manifest: { ...COUNTER.manifest, version: '1.1.0' }, files: { 'index.html': '<p>v1.1</p>' } }
    const { hash } = (await (await upload(next, ada)).json()) as { hash: string }
    expect((await send('PUT', '/v1/apps/installs/counter', { package: hash }, ada)).status).toBe(200)
    const after = await filesOf(ada)
    expect(after).not.toBe(before)
    expect(await (await frameGet(`${after}index.html`)).text()).toBe('<p>v1.1</p>')
    expect((await frameGet(`${before}index.html`)).status).toBe(404)
  })

  it('a package may name its shell frames and tools; an entry that is not among its files is MISSING_ENTRY', async () => {
    const ada = person('ada')
    const shellApp = { ...COUNTER, manifest: { ...COUNTER.manifest, entries: { tile: 'index.html', background: 'bg.html' }, tools: ['count_now'], origins: ['https://api.example.com'] }, files: { ...(COUNTER.files as object), 'bg.html': '<p>bg</p>' } }
    expect((await upload(shellApp, ada)).status).toBe(201)
    const missing = { ...shellApp, files: COUNTER.files }
    const res = await upload(missing, ada)
    expect(res.status).toBe(400)
    expect(await errorOf(res)).toMatchObject({ code: 'MISSING_ENTRY', details: { entry: 'bg.html' } })
  })
})
