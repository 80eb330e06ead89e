/**
 * Config instructions and skills given by URL go through the one outbound policy (the MCP
 * servers' own): a table of URLs that are refused before anything is sent, in development and
 * in production, including redirects to them; and every body is read as a bounded stream, so a
 * huge answer is never read whole (the fake network counts the bytes it was asked for).
 */
import { describe, expect, it } from 'vitest'
import { instructionsOf } from '../../objects/config/instructions.ts'
import { skillsOf } from '../../objects/config/skills.ts'
import { NeuronError } from '../../objects/core/errors.ts'
import { MAX_INSTRUCTIONS_URL_BYTES, MAX_SKILL_URL_BYTES } from '../../objects/core/limits.ts'
import { outboundFetch } from '../../objects/outbound/fetch.ts'

const dev = { development: true }
const prod = { development: false }
let unique = 0

/** A fake network that records every URL it is sent to and answers with `answer`. */
function network(answer: (url: string) => Response = () => new Response('be brief')) {
  const sent: string[] = []
  const send: typeof fetch = async (input) => {
    const url = String(input)
    sent.push(url)
    return answer(url)
  }
  return { sent, send }
}

const codeOf = async (work: Promise<unknown>) => work.then(() => null, (error: unknown) => (error instanceof NeuronError ? error.code : String(error)))

/** A body that never ends, counting the bytes pulled from it. */
function endless(): { response: Response; pulled: () => number } {
  let pulled = 0
  const chunk = new TextEncoder().encode('x'.repeat(16 * 1024))
  const body = new ReadableStream<Uint8Array>({
    pull(controller) {
      pulled += chunk.byteLength
      controller.enqueue(chunk)
    },
  })
  return { response: new Response(body), pulled: () => pulled }
}

const REFUSED_ALWAYS = [
  'http://[::ffff:127.0.0.1]:8787/notes.md',
  'http://[::ffff:7f00:1]/notes.md',
  'http://[::127.0.0.1]/notes.md',
  'http://[64:ff9b::127.0.0.1]/notes.md',
  'http://0.0.0.0:8787/notes.md',
  'http://0/notes.md',
  'https://[::]/notes.md',
  'http://169.254.169.254/latest/meta-data/',
  'https://10.0.0.5/notes.md',
  'https://172.16.3.4/notes.md',
  'https://192.168.1.1/notes.md',
  'https://100.64.0.1/notes.md',
  'https://224.0.0.1/notes.md',
  'https://255.255.255.255/notes.md',
  'https://[fe80::1]/notes.md',
  'https://[fd12:3456::1]/notes.md',
  'https://[ff02::1]/notes.md',
  'https://user:secret@example.com/notes.md',
]
const LOOPBACK = ['http://127.0.0.1:8787/notes.md', 'http://2130706433/notes.md', 'http://127.1/notes.md', 'http://localhost:8787/notes.md', 'http://app.localhost/notes.md', 'http://[::1]:8787/notes.md']

describe('instructions and skills URLs under the outbound policy', () => {
  it.each(REFUSED_ALWAYS)('refuses %s in development and production, sending nothing', async (url) => {
    for (const policy of [dev, prod]) {
      const net = network()
      expect(await codeOf(instructionsOf({ instructions: [{ url: `${url}?${unique++}` }] }, policy, Date.now(), net.send))).toBe('URL_REFUSED')
      expect(await codeOf(skillsOf({ skills: [{ url: `${url}?${unique++}` }] }, policy, Date.now(), net.send))).toBe('URL_REFUSED')
      expect(net.sent).toEqual([])
    }
  })

  it.each(LOOPBACK)('reaches loopback %s only in development', async (url) => {
    const net = network()
    expect(await codeOf(instructionsOf({ instructions: [{ url: `${url}?${unique++}` }] }, prod, Date.now(), net.send))).toBe('URL_REFUSED')
    expect(net.sent).toEqual([])
    expect(await instructionsOf({ instructions: [{ url: `${url}?${unique++}` }] }, dev, Date.now(), net.send)).toBe('be brief')
    expect(net.sent).toHaveLength(1)
  })

  it('outside development a public URL must be https; a redirect is checked like the first URL', async () => {
    const net = network((url) => (url.includes('/moved') ? new Response(null, { status: 302, headers: { location: 'http://169.254.169.254/latest' } }) : new Response('be brief')))
    expect(await codeOf(instructionsOf({ instructions: [{ url: `http://example.com/a?${unique++}` }] }, prod, Date.now(), net.send))).toBe('URL_REFUSED')
    expect(await instructionsOf({ instructions: [{ url: `https://example.com/a?${unique++}` }] }, prod, Date.now(), net.send)).toBe('be brief')
    expect(await codeOf(instructionsOf({ instructions: [{ url: `https://example.com/moved?${unique++}` }] }, prod, Date.now(), net.send))).toBe('URL_REFUSED')
    expect(net.sent.filter((url) => url.includes('169.254'))).toEqual([])
  })

  it('reads at most the kept prefix of an endless instructions body', async () => {
    const body = endless()
    const text = await instructionsOf({ instructions: [{ url: `https://example.com/huge?${unique++}` }] }, prod, Date.now(), async () => body.response)
    expect(text).toHaveLength(MAX_INSTRUCTIONS_URL_BYTES)
    expect(body.pulled()).toBeLessThan(MAX_INSTRUCTIONS_URL_BYTES + 64 * 1024)
  })

  it('refuses a skill body over its bound without reading it whole, and one that says so up front without reading it at all', async () => {
    const body = endless()
    expect(await codeOf(skillsOf({ skills: [{ url: `https://example.com/skill?${unique++}` }] }, prod, Date.now(), async () => body.response))).toBe('URL_BODY_TOO_LARGE')
    expect(body.pulled()).toBeLessThan(MAX_SKILL_URL_BYTES + 64 * 1024)
    const declared = endless()
    const big = new Response(declared.response.body, { headers: { 'content-length': String(700 * 1024 * 1024) } })
    expect(await codeOf(skillsOf({ skills: [{ url: `https://example.com/declared?${unique++}` }] }, prod, Date.now(), async () => big))).toBe('URL_BODY_TOO_LARGE')
    expect(declared.pulled()).toBeLessThanOrEqual(16 * 1024)
  })

  it('the outbound fetch errors a body past its bound as a stream, with the code', async () => {
    const body = endless()
    const get = outboundFetch(prod, { refused: 'URL_REFUSED', tooLarge: 'URL_BODY_TOO_LARGE', maxBytes: 100_000 }, async () => body.response)
    expect(await codeOf((await get('https://example.com/x')).text())).toBe('URL_BODY_TOO_LARGE')
    expect(body.pulled()).toBeLessThan(100_000 + 64 * 1024)
  })
})
