/**
 * One identifier rule, checked at the edge: a name that could not form a valid
 * address (`a.`, `.a`, `a..b`) is refused where it enters, with the route's
 * code, instead of passing and failing later with INVALID_ENVELOPE.
 */
import { describe, expect, it } from 'vitest'
import { isAddress } from '../../objects/ledger/address.ts'
import { Identifier } from '../../objects/core/validate.ts'
import { api, postJson } from '../support/api.ts'
import { newSession } from '../support/session.ts'

const codeOf = async (res: Response) => ((await res.json()) as { error: { code: string } }).error.code

describe('identifiers', () => {
  it.each(['a.', '.a', 'a..b', '.', 'a b', 'x'.repeat(129), ''])('%j is refused everywhere it enters', async (bad) => {
    expect(Identifier.safeParse(bad).success).toBe(false)
    const create = await postJson('/v1/sessions', { id: bad })
    expect(create.status).toBe(400)
    const { error } = (await create.json()) as { error: { code: string; details: { issues: { path: string }[] } } }
    expect(error.code).toBe('INVALID_REQUEST')
    // The field that is wrong, by its path in the body.
    expect(error.details.issues.map((issue) => issue.path)).toEqual(['id'])
    if (bad !== '' && bad !== '.') {
      const read = await api(`/v1/sessions/${encodeURIComponent(bad)}`)
      expect(await codeOf(read)).toBe('INVALID_SESSION_ID')
      expect(await codeOf(await api(`/v1/ledgers/${encodeURIComponent(bad)}/head`))).toBe('INVALID_NAME')
    }
  })

  it('every accepted identifier forms valid derived addresses', async () => {
    for (const good of ['a', 'a.b', 'a-b_c:d', 'x'.repeat(128), '0.1.2']) {
      expect(Identifier.safeParse(good).success).toBe(true)
      expect(isAddress(`session.${good}.notes`)).toBe(true)
    }
    const { id } = await newSession('dotted.name')
    const prompt = await postJson(`/v1/sessions/${id}/prompt`, { id: 'm.1', text: 'hi' })
    expect(prompt.status).toBe(202)
    const badMessage = await postJson(`/v1/sessions/${id}/prompt`, { id: 'm.', text: 'hi' })
    expect(await codeOf(badMessage)).toBe('INVALID_REQUEST')
  })
})
