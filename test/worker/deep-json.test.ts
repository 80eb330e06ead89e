/**
 * Deeply nested JSON is refused at the gate with 400 `JSON_TOO_DEEP`, on every
 * JSON body route and on the WebSocket, before anything reaches an object's
 * storage; nesting up to the limit is fine.
 */
import { describe, expect, it } from 'vitest'
import { MAX_JSON_DEPTH } from '../../objects/core/limits.ts'
import { parseJson } from '../../objects/core/parse-json.ts'
import { api, newSession, ownerCaller, postJson, waitIdle } from '../support/session.ts'
import { openSocket } from '../support/streams.ts'
import { uniqueName } from '../support/ledger.ts'

const nested = (depth: number) => '['.repeat(depth - 1) + '{"a":1}' + ']'.repeat(depth - 1)
const send = (method: string, path: string, body: string) => api(path, { method, headers: { 'content-type': 'application/json' }, body })

async function codeOf(res: Response): Promise<string> {
  return ((await res.json()) as { error: { code: string } }).error.code
}

describe('JSON nesting limit', () => {
  it('counts nesting outside strings only, and parses what is within the limit', () => {
    expect(parseJson(nested(MAX_JSON_DEPTH))).toBeDefined()
    expect(() => parseJson(nested(MAX_JSON_DEPTH + 1))).toThrow(/nests arrays and objects 65 deep/)
    expect(parseJson(JSON.stringify({ text: '[[[[{{{{'.repeat(100) + '\\"]]' }))).toMatchObject({ text: expect.any(String) })
  })

  it('refuses what parses but no ledger stores, with its path: a lone surrogate, a number past the double range', () => {
    const codeAndPath = (text: string) => {
      try {
        parseJson(text)
        return null
      } catch (error) {
        return [(error as { code: string }).code, (error as { details: { path: string } }).details.path]
      }
    }
    expect(codeAndPath('{"a":["ok","\\ud800"]}')).toEqual(['NOT_JSON_COMPATIBLE', '$.a[1]'])
    expect(codeAndPath('{"n":1e999}')).toEqual(['NOT_JSON_COMPATIBLE', '$.n'])
    expect(codeAndPath('{"\\udc00":1}')).toEqual(['NOT_JSON_COMPATIBLE', '$'])
    expect(codeAndPath('{"pair":"\\ud83d\\ude00"}')).toBeNull()
  })

  it('every JSON body route answers 400 JSON_TOO_DEEP for ~3,600-deep bodies, and writes nothing', async () => {
    const { id, stub } = await newSession('deep')
    const before = (await stub.view(ownerCaller)).lastSequence
    const ledger = uniqueName('deep')
    const deep = nested(3600)
    const deepObject = (inner: string) => `{"topic":"a.b","type":"t","payload":${inner}}`
    const cases: [string, string, string][] = [
      ['POST', '/v1/sessions', `{"id":"${uniqueName('deep')}","title":${deep}}`],
      ['POST', `/v1/sessions/${id}/prompt`, `{"text":"hi","parts":${deep}}`],
      ['POST', `/v1/ledgers/${ledger}/envelopes`, deepObject(nested(2040))],
      ['PUT', `/v1/ledgers/${ledger}/schemas/deep@1`, `{"type":"object","properties":${deep}}`],
    ]
    for (const [method, path, body] of cases) {
      const res = await send(method, path, body)
      expect(res.status, `${method} ${path}`).toBe(400)
      expect(await codeOf(res)).toBe('JSON_TOO_DEEP')
    }
    expect((await stub.view(ownerCaller)).lastSequence).toBe(before)
    // Within the limit the same routes answer normally.
    const ok = await send('POST', `/v1/ledgers/${ledger}/envelopes`, deepObject(nested(MAX_JSON_DEPTH - 1)))
    expect(ok.status).toBe(201)
  })

  it('a WebSocket message nested too deep is answered JSON_TOO_DEEP and the socket stays usable', async () => {
    const { id, stub } = await newSession('deep-ws')
    const socket = await openSocket(`/v1/sessions/${id}/ws`)
    socket.ws.send(`{"type":"prompt","text":"x","parts":${nested(3600)}}`)
    await socket.until((m) => m.some((x) => x.type === 'error'))
    expect((socket.messages.find((x) => x.type === 'error')!.error as { code: string }).code).toBe('JSON_TOO_DEEP')
    socket.send({ type: 'ping', data: 'still here' })
    await socket.until((m) => m.some((x) => x.type === 'pong'))
    socket.close()
    expect((await stub.view(ownerCaller)).counts.prompts).toBe(0)
    expect((await postJson(`/v1/sessions/${id}/prompt`, { text: 'fine' })).status).toBe(202)
    // The turn ends before the file does: work left running when the isolate is torn down fails the run.
    await waitIdle(id)
  })
})
