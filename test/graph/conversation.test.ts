import { describe, expect, it } from 'vitest'
import { NeuronError } from '../../objects/core/errors.ts'
import { Conversations } from '../../objects/graph/conversation.ts'
import { uniqueName, withLedger } from '../support/ledger.ts'

const say = (chats: Conversations, text: string, branch?: string) =>
  chats.say('c1', { role: 'user', content: text, author: 'user:ada', ...(branch ? { branch } : {}) })

function codeOf(run: () => unknown): string {
  try {
    run()
  } catch (error) {
    if (error instanceof NeuronError) return error.code
    throw error
  }
  return 'no error'
}

describe('conversations are chains', () => {
  it('links each turn to the previous one; the transcript walks the chain', () =>
    withLedger(uniqueName(), (ledger) => {
      const chats = new Conversations(ledger)
      const node = chats.open('c1', 'user:ada', { title: 'demo' })
      const one = say(chats, 'one')
      const two = say(chats, 'two')
      expect(ledger.get(one.id)!.parent).toBe(node.id)
      expect(ledger.get(two.id)!.parent).toBe(one.id)
      expect(chats.transcript('c1').turns.map((t) => t.content)).toEqual(['one', 'two'])
    }))

  it('forks by pointing a new branch at an old turn; both branches stay readable', () =>
    withLedger(uniqueName(), (ledger) => {
      const chats = new Conversations(ledger)
      chats.open('c1', 'user:ada')
      const one = say(chats, 'one')
      say(chats, 'two')
      chats.fork('c1', one.id, 'alt', 'user:ada')
      say(chats, 'two-alt', 'alt')
      say(chats, 'three')
      expect(chats.transcript('c1').turns.map((t) => t.content)).toEqual(['one', 'two', 'three'])
      expect(chats.transcript('c1', { branch: 'alt' }).turns.map((t) => t.content)).toEqual(['one', 'two-alt'])
      expect(codeOf(() => chats.fork('c1', one.id, 'alt', 'user:ada'))).toBe('BRANCH_EXISTS')
    }))

  it('truncates by pointing elsewhere: history stays, the head moves', () =>
    withLedger(uniqueName(), (ledger) => {
      const chats = new Conversations(ledger)
      chats.open('c1', 'user:ada')
      const one = say(chats, 'one')
      const two = say(chats, 'two')
      const rows = ledger.head()
      chats.truncate('c1', 'main', one.id, 'user:ada')
      expect(chats.transcript('c1').turns.map((t) => t.content)).toEqual(['one'])
      say(chats, 'two-again')
      expect(chats.transcript('c1').turns.map((t) => t.content)).toEqual(['one', 'two-again'])
      // Nothing was deleted or rewritten: the old turn is still there, only new rows were added.
      expect(ledger.get(two.id)?.payload).toEqual({ role: 'user', content: 'two' })
      expect(ledger.head()).toBe(rows + 2)
      expect(codeOf(() => chats.truncate('c1', 'main', two.id, 'user:ada'))).toBe('NOT_ON_BRANCH')
    }))

  it('pages a long transcript and survives a fresh fold', () =>
    withLedger(uniqueName(), (ledger) => {
      const first = new Conversations(ledger)
      first.open('c1', 'user:ada')
      for (let i = 0; i < 30; i++) say(first, `t${i}`)
      const fresh = new Conversations(ledger)
      const last = fresh.transcript('c1', { limit: 5 })
      expect(last).toEqual({ turns: expect.any(Array), more: true })
      expect(last.turns.map((t) => t.content)).toEqual(['t25', 't26', 't27', 't28', 't29'])
      expect(fresh.transcript('c1', { limit: 1000 }).turns).toHaveLength(30)
    }))

  it('explains misuse with codes', () =>
    withLedger(uniqueName(), (ledger) => {
      const chats = new Conversations(ledger)
      expect(codeOf(() => say(chats, 'x'))).toBe('NOT_FOUND')
      chats.open('c1', 'user:ada')
      expect(codeOf(() => chats.open('c1', 'user:ada'))).toBe('CONVERSATION_EXISTS')
      expect(codeOf(() => say(chats, 'x', 'nope'))).toBe('UNKNOWN_BRANCH')
      expect(codeOf(() => chats.fork('c1', 'f'.repeat(64), 'b', 'user:ada'))).toBe('UNKNOWN_TURN')
    }))
})
