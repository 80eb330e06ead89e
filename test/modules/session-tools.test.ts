/**
 * An uploaded module's tools in its owner's sessions (real session objects, the real Worker
 * Loader): offered from the next turn with the module's version in the step's tool specs, called
 * with their input and output checked, each failure (a throw, output off its schema, output over
 * its bound, input off its schema) failing only that call with a code while the others succeed;
 * another principal's sessions are not offered them; a new version replaces the old at the next turn.
 */
import { env } from 'cloudflare:workers'
import { beforeAll, describe, expect, it } from 'vitest'
import { MODULE_LIMITS } from '../../objects/core/limits.ts'
import type { Stored } from '../../objects/ledger/envelope.ts'
import { api, postJson } from '../support/api.ts'
import { newSession, waitIdle } from '../support/session.ts'
import { idOf } from '../support/auth.ts'
import { warm } from '../apps/support.ts'

const obj = (properties: Record<string, unknown>) => ({ type: 'object', properties, required: Object.keys(properties) })
const TOOLS = {
  module: 'probe',
  code: `export default {
  async probe_echo(input) { return { said: input.text } },
  async probe_throw() { throw new Error('the probe broke') },
  async probe_wrong() { return { said: 42 } },
  async probe_big() { return { said: 'x'.repeat(${MODULE_LIMITS.outputBytes} + 10) } },
}`,
  tools: ['probe_echo', 'probe_throw', 'probe_wrong', 'probe_big'].map((name) => ({ name, description: `${name} of the probe`, input: obj({ text: { type: 'string' } }), output: obj({ said: { type: 'string' } }) })),
}
const ALLOW_MODULES = { permission: { rules: [{ source: 'module:*', action: 'allow' }] } }

/** Every durable event of session `id`, read as `as`. */
async function events(id: string, as: string): Promise<Stored[]> {
  const all: Stored[] = []
  for (let after = 0; ; ) {
    const page = await env.SESSIONS.getByName(id).history({ id: idOf(as), claims: [] }, after, 1000)
    all.push(...(page.items as Stored[]))
    if (page.next === null) return all
    after = page.next
  }
}

/** Runs one prompt in `id` and waits for its end; the events it added. */
async function turn(id: string, text: string, as: string): Promise<Stored[]> {
  const before = (await events(id, as)).length
  const res = await postJson(`/v1/sessions/${id}/prompt`, { text }, as)
  expect(res.status, await res.clone().text()).toBe(202)
  await waitIdle(id, 30_000, as)
  return (await events(id, as)).slice(before)
}

const outcomes = (added: Stored[]) =>
  Object.fromEntries(
    added
      .filter((e) => e.type === 'session.next.tool.succeeded' || e.type === 'session.next.tool.failed')
      .map((e) => {
        const payload = e.payload as { toolCallId: string; content?: string; error?: { code: string; message: string } }
        return [payload.toolCallId, payload.error ? payload.error.code : payload.content]
      }),
  )

async function offered(id: string, added: Stored[], as: string): Promise<{ name: string; description: string }[]> {
  const started = added.find((e) => e.type === 'session.next.step.started')!.payload as { tools: string }
  return (await (await api(`/v1/sessions/${id}/artifacts/${started.tools}`, {}, as)).json()) as { name: string; description: string }[]
}

async function sessionFor(as: string): Promise<string> {
  const { id } = await newSession('modules', as)
  expect((await api(`/v1/sessions/${id}/config`, { method: 'PUT', headers: { 'content-type': 'application/json' }, body: JSON.stringify(ALLOW_MODULES) }, as)).status).toBe(200)
  return id
}

describe("uploaded tool modules in the owner's sessions", () => {
  beforeAll(() => warm(), 60_000)

  it('offers the tools with their version, and each failing call fails alone with a code', async () => {
    const ada = `ada-${crypto.randomUUID()}`
    const stored = await postJson('/v1/modules', TOOLS, ada)
    expect(stored.status).toBe(201)
    const { hash } = (await stored.json()) as { hash: string }
    const id = await sessionFor(ada)
    const added = await turn(
      id,
      ['/tool probe_echo {"text":"hello"}', '/tool probe_throw {"text":"a"}', '/tool probe_wrong {"text":"b"}', '/tool probe_big {"text":"c"}', '/tool probe_echo {"text":1}'].join('\n'),
      ada,
    )
    expect(outcomes(added)).toEqual({
      call_1_1: '{"said":"hello"}',
      call_1_2: 'BACKEND_FAILED',
      call_1_3: 'TOOL_OUTPUT_INVALID',
      call_1_4: 'OUTPUT_TOO_LARGE',
      call_1_5: 'TOOL_INPUT_INVALID',
    })
    const failed = added.find((e) => e.type === 'session.next.tool.failed')!.payload as { error: { message: string } }
    expect(failed.error.message).toContain('probe@1')
    expect(failed.error.message).toContain('the probe broke')
    // The step's offered tools name the module version each call ran.
    const echo = (await offered(id, added, ada)).find((spec) => spec.name === 'probe_echo')
    expect(echo?.description).toBe(`probe_echo of the probe (tool module probe version 1, ${hash.slice(0, 12)})`)
    // The session goes on: its next turn answers.
    expect(outcomes(await turn(id, '/tool calculator {"expression":"6*7"}', ada))).toEqual({ call_3_1: expect.stringContaining('42') })
  })

  it("a new version replaces the old at the next turn; retired, the tools leave; another principal's sessions never see them", async () => {
    const ada = `ada-${crypto.randomUUID()}`
    expect((await postJson('/v1/modules', TOOLS, ada)).status).toBe(201)
    const id = await sessionFor(ada)
    expect(outcomes(await turn(id, '/tool probe_echo {"text":"one"}', ada))).toEqual({ call_1_1: '{"said":"one"}' })
    const v2 = { ...TOOLS, code: TOOLS.code.replace('said: input.text', "said: input.text + ' (v2)'") }
    expect(await (await postJson('/v1/modules', v2, ada)).json()).toMatchObject({ version: 2 })
    const added = await turn(id, '/tool probe_echo {"text":"two"}', ada)
    expect(outcomes(added)).toEqual({ call_3_1: '{"said":"two (v2)"}' })
    expect((await offered(id, added, ada)).find((spec) => spec.name === 'probe_echo')?.description).toContain('version 2')

    expect((await api('/v1/modules/probe', { method: 'DELETE' }, ada)).status).toBe(200)
    expect(outcomes(await turn(id, '/tool probe_echo {"text":"three"}', ada))).toEqual({ call_5_1: 'TOOL_NOT_FOUND' })

    const bob = `bob-${crypto.randomUUID()}`
    const theirs = await sessionFor(bob)
    expect((await postJson('/v1/modules', TOOLS, ada)).status).toBe(201)
    expect(outcomes(await turn(theirs, '/tool probe_echo {"text":"mine?"}', bob))).toEqual({ call_1_1: 'TOOL_NOT_FOUND' })
    expect(await env.APP_SHELVES.getByName(idOf(bob)).toolModules()).toEqual([])
  })
})
