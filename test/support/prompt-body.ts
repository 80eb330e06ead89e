/** Prompt bodies of an exact UTF-8 size, for tests at the body limit (shared by workerd and process tests). */
const encoder = new TextEncoder()

/**
 * A prompt body of exactly `bytes` UTF-8 bytes: two text parts filled with "€" (3 bytes) and
 * padded with ASCII. `euroAt` places a "€" so that its three bytes start at that body offset.
 */
export function promptBody(bytes: number, options: { id?: string; type?: 'prompt'; euroAt?: number; prefix?: string } = {}): string {
  const head = options.type ? `{"type":"prompt",` : '{'
  const skeleton = (a: string, b: string) => `${head}"id":"${options.id ?? 'p'}","parts":[{"type":"text","text":"${a}"},{"type":"text","text":"${b}"}]}`
  const first = (options.prefix ?? '') + '€'.repeat(170_000)
  const room = bytes - encoder.encode(skeleton(first, '')).byteLength
  // The second part's text starts at this body offset.
  const start = encoder.encode(skeleton(first, '')).byteLength - '"}]}'.length
  const lead = options.euroAt === undefined ? 0 : options.euroAt - start
  const second = 'a'.repeat(lead) + '€'.repeat(Math.floor((room - lead) / 3)) + 'a'.repeat((room - lead) % 3)
  const body = skeleton(first, second)
  if (encoder.encode(body).byteLength !== bytes) throw new Error('promptBody: size arithmetic is off')
  if (options.euroAt !== undefined && encoder.encode(body).subarray(options.euroAt, options.euroAt + 3).join() !== encoder.encode('€').join()) {
    throw new Error('promptBody: no "€" at the requested offset')
  }
  return body
}

