import { describe, expect, it } from 'vitest'
import { sseEvents, utf8 } from './support.ts'

const ev = (data: string, event = 'message', id = '') => ({ event, data, id })

describe('SseParser: WHATWG event-stream interpretation', () => {
  it('dispatches data on a blank line, with the default event type', () => {
    expect(sseEvents(['data: hello\n\n']).events).toEqual([ev('hello')])
  })

  it('names events with `event`, and the name does not leak into the next event', () => {
    expect(sseEvents(['event: add\ndata: 1\n\ndata: 2\n\n']).events).toEqual([ev('1', 'add'), ev('2')])
  })

  it('joins multi-line data with LF', () => {
    expect(sseEvents(['data: a\ndata: b\ndata: c\n\n']).events).toEqual([ev('a\nb\nc')])
  })

  it('strips exactly one space after the colon, and keeps later colons', () => {
    expect(sseEvents(['data:  two\n\ndata:none\n\ndata: a:b: c\n\n']).events).toEqual([ev(' two'), ev('none'), ev('a:b: c')])
  })

  it('ignores comments, and a comment-only block dispatches nothing', () => {
    expect(sseEvents([': hello\n\n:\n\ndata: x\n: inside\n\n']).events).toEqual([ev('x')])
  })

  it('a field with no colon has an empty value: `data` alone dispatches an empty string', () => {
    expect(sseEvents(['data\n\ndata:\n\ndata\ndata\n\n']).events).toEqual([ev(''), ev(''), ev('\n')])
  })

  it('does not dispatch an event without data, and resets its type', () => {
    expect(sseEvents(['event: lonely\n\ndata: x\n\n']).events).toEqual([ev('x')])
  })

  it('keeps the last event id across events; an id with NULL is ignored; an empty id resets it', () => {
    const { events, parser } = sseEvents(['id: 1\ndata: a\n\ndata: b\n\nid: 2\u0000x\ndata: c\n\nid\ndata: d\n\n'])
    expect(events).toEqual([ev('a', 'message', '1'), ev('b', 'message', '1'), ev('c', 'message', '1'), ev('d')])
    expect(parser.lastEventId).toBe('')
  })

  it('takes `retry` only when it is all ASCII digits', () => {
    expect(sseEvents(['retry: 3000\n\n']).parser.retry).toBe(3000)
    expect(sseEvents(['retry: 3000\nretry: 3s\nretry: -1\nretry:\n\n']).parser.retry).toBe(3000)
  })

  it('ignores unknown fields and field names that only start like known ones', () => {
    expect(sseEvents(['foo: bar\ndatum: no\nData: no\ndata: yes\n\n']).events).toEqual([ev('yes')])
  })

  it('accepts LF, CR and CRLF line ends, mixed', () => {
    expect(sseEvents(['data: a\r\ndata: b\rdata: c\n\r\nevent: e\rdata: d\r\r']).events).toEqual([
      ev('a\nb\nc'),
      ev('d', 'e'),
    ])
  })

  it('a CR ending one chunk and an LF starting the next are one line end', () => {
    // Read as two line ends, the LF would be a blank line and split this into two events.
    expect(sseEvents(['data: a\r', '\ndata: b\r\n\r\n']).events).toEqual([ev('a\nb')])
    expect(sseEvents(['data: a\r', '', '\ndata: b\r\n\r\n']).events).toEqual([ev('a\nb')])
  })

  it('a lone CR at a chunk end is still a line end', () => {
    expect(sseEvents(['data: a\r', '\r']).events).toEqual([ev('a')])
  })

  it('discards an event the stream did not terminate with a blank line', () => {
    expect(sseEvents(['data: a\n\ndata: b\n']).events).toEqual([ev('a')])
    expect(sseEvents(['data: a\n\ndata: b']).events).toEqual([ev('a')])
  })

  it('skips one leading BOM only', () => {
    const bom = new Uint8Array([0xef, 0xbb, 0xbf])
    const rest = utf8('data: x\n\n\uFEFFdata: y\n\n')
    expect(sseEvents([bom, rest]).events).toEqual([ev('x')])
  })

  it('decodes UTF-8 split anywhere, including inside a character', () => {
    const bytes = utf8('data: 🌍 café 日本\n\n')
    for (let at = 1; at < bytes.length; at++) {
      const { events } = sseEvents([bytes.subarray(0, at), bytes.subarray(at)])
      expect(events, `split at ${at}`).toEqual([ev('🌍 café 日本')])
    }
    expect(sseEvents([...bytes].map((b) => new Uint8Array([b]))).events).toEqual([ev('🌍 café 日本')])
  })

  it('replaces invalid UTF-8 with U+FFFD instead of failing', () => {
    expect(sseEvents([new Uint8Array([0x64, 0x61, 0x74, 0x61, 0x3a, 0x20, 0xff, 0x0a, 0x0a])]).events).toEqual([ev('\uFFFD')])
  })

  it('assembles a long line sent one character at a time', () => {
    const data = 'x'.repeat(5000)
    const chunks = [...`event: big\ndata: ${data}\n\n`]
    expect(sseEvents(chunks).events).toEqual([ev(data, 'big')])
  })
})
