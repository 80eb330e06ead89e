/**
 * Session-scoped notes: `note_write` and `note_search`. Notes are envelopes on
 * the session's `notes` topic; the list is a fold, so a note survives every
 * crash its write was acknowledged before.
 */
import { z } from 'zod'
import type { Ledger } from '../../ledger/ledger.ts'
import { Tool } from '../tool.ts'

interface Note {
  id: string
  title: string
  text: string
}

/**
 * @example
 * const { write, search } = notesTools(ledger, 'session.s1.notes')
 */
export function notesTools(ledger: Ledger, topic: string) {
  const all = (): Note[] =>
    ledger.fold(topic, (notes: Note[], e) => [...notes, { id: e.id, ...(e.payload as { title: string; text: string }) }], []).state

  const write = Tool.make({
    description: 'Save a note for later in this session.',
    input: z.object({ title: z.string().min(1).max(200), text: z.string().max(20_000) }),
    output: z.object({ id: z.string(), count: z.number() }),
    execute: ({ title, text }, context) => {
      const { envelope } = ledger.append({
        topic,
        type: 'note.written',
        author: `tool:note_write:${context.toolCallId}`,
        payload: { title, text },
      })
      return { id: envelope.id, count: all().length }
    },
  })

  const search = Tool.make({
    description: 'Find notes saved in this session whose title or text contains the query (empty query lists all).',
    input: z.object({ query: z.string().max(200).default('') }),
    output: z.object({ notes: z.array(z.object({ title: z.string(), text: z.string() })) }),
    execute: ({ query }) => {
      const needle = query.toLowerCase()
      const notes = all().filter((n) => `${n.title}\n${n.text}`.toLowerCase().includes(needle))
      return { notes: notes.map(({ title, text }) => ({ title, text })) }
    },
  })

  return { write, search }
}
