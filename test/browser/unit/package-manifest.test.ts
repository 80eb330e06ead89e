import { describe, expect, it } from 'vitest'
import { canonicalJson } from '../../../objects/ledger/json.ts'
import { sha256Hex } from '../../../objects/ledger/hash.ts'
import { checkPackage } from '../../../objects/apps/package.ts'
import { isEntryPath, parseManifest } from '../../../shell-web/kernel/installs/manifest.ts'
import { describePackage, manifestOfPackage, packageHash } from '../../../shell-web/kernel/installs/package-manifest.ts'
import { COUNTER } from '../../fixtures/apps/packages.ts'

const BASE = `/app-frames/${'a'.repeat(64)}.ZGV2.${'b'.repeat(43)}/`

describe('packages as the shell runs them', () => {
  it('the shell computes the same content id as the server (canonical JSON, defaults filled in), whatever the key order', async () => {
    expect(await packageHash(COUNTER)).toBe(checkPackage(COUNTER).hash)
    const noInterface = { manifest: { app: 'hello', version: '1', name: 'Hello', entry: 'a.html' }, files: { 'a.html': '<p>hi</p>' } }
    expect(await packageHash(noInterface)).toBe(checkPackage(noInterface).hash)
    expect(await packageHash({ files: noInterface.files, manifest: noInterface.manifest })).toBe(sha256Hex(canonicalJson(checkPackage(noInterface).pkg)))
  })

  it('maps a package to a kernel manifest whose entries are its files at the install\u2019s address; without entries, its entry is the tile', () => {
    expect(parseManifest(manifestOfPackage(COUNTER, BASE))).toEqual({ id: 'counter', version: '1.0.0', title: 'Counter', description: '', entries: { tile: `${BASE}index.html` }, tools: [], permissions: [], agentEntrypoints: [], vetkeys: [] })
    const full = { manifest: { app: 'notes', version: '2', name: 'Notes', entry: 'tile.html', description: 'd', entries: { tile: 'tile.html', background: 'bg/background.html' }, tools: ['notes_search'], permissions: ['planner'], agentEntrypoints: ['notes_search'], vetkeys: ['notes/sync'] }, files: {} }
    expect(parseManifest(manifestOfPackage(full, BASE))).toMatchObject({ id: 'notes', description: 'd', entries: { tile: `${BASE}tile.html`, background: `${BASE}bg/background.html` }, tools: ['notes_search'], permissions: ['planner'], agentEntrypoints: ['notes_search'], vetkeys: ['notes/sync'] })
  })

  it('entry paths: a package file never leaves its package, and nothing but /apps, /fixtures and /app-frames is a frame', () => {
    for (const ok of [`${BASE}tile.html`, `${BASE}a/b.html`, '/apps/notes/tile']) expect(isEntryPath(ok), ok).toBe(true)
    for (const bad of [`${BASE}../x.html`, `${BASE}a/../../v1/me`, `${BASE}./x`, `${BASE}a//b`, `${BASE}`, '/v1/me', `/app-frames/${'a'.repeat(64)}/tile.html`, 'https://evil.test/app-frames/x', `${BASE}tile.html?x=1`]) expect(isEntryPath(bad), bad).toBe(false)
  })

  it('describes an offer for the person, or says why the shell could not run it', async () => {
    const offer = await describePackage({ ...COUNTER, manifest: { ...COUNTER.manifest, origins: ['https://api.example.com'] } })
    expect(offer).toMatchObject({ app: 'counter', name: 'Counter', version: '1.0.0', backend: true, methods: ['count', 'increment'], origins: ['https://api.example.com'], frames: ['tile'] })
    await expect(describePackage({ manifest: { app: 'x' } })).rejects.toThrow(/not an app package/)
    await expect(describePackage({ manifest: { app: 'Bad_Id', version: '1', name: 'n', entry: 'a.html' }, files: { 'a.html': '' } })).rejects.toThrow(/id must match/)
    await expect(describePackage({ manifest: { app: 'ok-app', version: '1', name: 'n', entry: 'a.html' }, files: {} })).rejects.toThrow(/not among the package's files/)
  })
})
