/**
 * The history fold's cached view of the open step: asked for several times in a turn, it is
 * rendered once, and any event folded in (recorded here or read from the log) renders it again.
 */
import { env } from 'cloudflare:workers'
import { runInDurableObject } from 'cloudflare:test'
import { describe, expect, it } from 'vitest'
import { Ledger } from '../../objects/ledger/ledger.ts'
import { History } from '../../objects/session/turn/history.ts'
import { emptySession, reduceSession } from '../../objects/session/events/projection.ts'

describe('history', () => {
  it('shows the open step as it grows, and counts its characters with it', () =>
    runInDurableObject(env.SESSIONS.getByName('history-open-step'), (_object, state) => {
      const ledger = new Ledger(state.storage)
      const topic = 'session.history-open-step'
      const history = new History(ledger, topic)
      let session = emptySession()
      const record = (type: string, payload: Record<string, unknown>, apply = true) => {
        const { envelope } = ledger.append({ topic, type: `session.next.${type}`, author: 'test', parent: session.lastId, payload })
        session = reduceSession(session, envelope)
        if (apply) history.apply(envelope)
      }
      record('created', { model: 'm', provider: 'p', title: null, system: null, owner: 'o', share: [] })
      record('admitted', { messageId: 'm1', delivery: 'queue', text: 'hi', digest: 'd' })
      record('prompted', { messageIds: ['m1'] })
      record('step.started', { step: 's1', turn: 1, provider: 'p', model: 'm', tools: 'sha256:x', chars: 0 })
      expect(history.messages(session)).toEqual([{ role: 'user', content: 'hi' }])
      const before = history.chars()

      record('text', { step: 's1', text: 'hello' })
      const answer = { role: 'assistant', content: [{ type: 'text', text: 'hello' }] }
      expect(history.messages(session)).toEqual([{ role: 'user', content: 'hi' }, answer])
      expect(history.messages(session)).toEqual([{ role: 'user', content: 'hi' }, answer])
      expect(history.chars()).toBe(before + JSON.stringify(answer).length)

      // An event the history did not see as it was recorded is read from the log, and shown too.
      record('text', { step: 's1', text: 'again' }, false)
      expect(history.messages(session).at(-1)).toEqual({ role: 'assistant', content: [{ type: 'text', text: 'hello' }, { type: 'text', text: 'again' }] })
    }))
})
