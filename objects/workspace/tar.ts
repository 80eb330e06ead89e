/**
 * A small, bounded tar (ustar + the pax `path` record) reader and writer for workspace uploads and
 * downloads. Reading is incremental (`readTarStream`): each file's bytes are handed on as they
 * arrive, so an upload is never held whole. It takes regular files (type `0` or NUL) and skips directories (`5`); links,
 * devices and anything else are refused (`TAR_INVALID`), since the workspace has files only. A
 * header's checksum is verified. Writing emits ustar headers (a pax `path` record for paths over
 * 100 bytes that the prefix field cannot split) and streams one file at a time.
 *
 * Pure: no platform imports.
 */
import { NeuronError } from '../core/errors.ts'
import { WORKSPACE_TAR_ENTRIES } from '../core/limits.ts'

const BLOCK = 512
const encoder = new TextEncoder()
const decoder = new TextDecoder()

function invalid(reason: string): NeuronError {
  return new NeuronError('TAR_INVALID', `the archive cannot be read: ${reason}`, { status: 400, details: { reason } })
}

function field(block: Uint8Array, offset: number, length: number): string {
  const bytes = block.subarray(offset, offset + length)
  const end = bytes.indexOf(0)
  return decoder.decode(end < 0 ? bytes : bytes.subarray(0, end))
}

function octal(block: Uint8Array, offset: number, length: number): number {
  const text = field(block, offset, length).trim()
  if (!/^[0-7]*$/.test(text)) throw invalid(`a header number is not octal (${JSON.stringify(text)})`)
  return text === '' ? 0 : parseInt(text, 8)
}

/** A file of an archive. */
export interface TarFile {
  path: string
  bytes: Uint8Array
}

/** What a streamed archive's reader hands each regular file to, in order. */
export interface TarSink {
  /** A regular file begins: its path and declared size, before any of its bytes (a refusal throws). */
  file(path: string, size: number): void | Promise<void>
  /** The next bytes of the file begun last. */
  data(bytes: Uint8Array): void | Promise<void>
  /** The file begun last is whole. */
  end(): void | Promise<void>
}

/** A pax record larger than this is refused: the only one read is `path`, itself at most 1 KiB. */
const PAX_BYTES = 64 * 1024

/** Reads a byte stream in pieces of a bounded size, counting where it is. */
class Pieces {
  offset = 0
  private pending: Uint8Array = new Uint8Array(0)

  constructor(private readonly reader: ReadableStreamDefaultReader<Uint8Array>) {}

  /** The next bytes, at most `max` of them, or null at the end of the stream. */
  async next(max: number): Promise<Uint8Array | null> {
    while (this.pending.byteLength === 0) {
      const { done, value } = await this.reader.read()
      if (done) return null
      this.pending = value
    }
    const piece = this.pending.subarray(0, max)
    this.pending = this.pending.subarray(piece.byteLength)
    this.offset += piece.byteLength
    return piece
  }

  /** Exactly `n` bytes (copied), null when the stream ends before the first, or `short` thrown when it ends inside them. */
  async exactly(n: number, short: () => NeuronError): Promise<Uint8Array | null> {
    const out = new Uint8Array(n)
    let filled = 0
    while (filled < n) {
      const piece = await this.next(n - filled)
      if (piece === null) {
        if (filled === 0) return null
        throw short()
      }
      out.set(piece, filled)
      filled += piece.byteLength
    }
    return out
  }

  /** Hands the next `n` bytes to `each` as they arrive; `short` is thrown when the stream ends first. */
  async forward(n: number, each: (bytes: Uint8Array) => void | Promise<void>, short: () => NeuronError): Promise<void> {
    for (let left = n; left > 0; ) {
      const piece = await this.next(left)
      if (piece === null) throw short()
      await each(piece)
      left -= piece.byteLength
    }
  }
}

/**
 * Reads a tar archive as it arrives, handing each regular file to `sink` without holding more than
 * one header (or a bounded pax record) and the piece being read. Returns how many files it read.
 * Stops at the end-of-archive block; anything after it is not read.
 *
 * @example
 * await readTarStream(request.body!, { file: (path, size) => begin(path, size), data: (bytes) => write(bytes), end: () => finish() })
 */
export async function readTarStream(stream: ReadableStream<Uint8Array>, sink: TarSink): Promise<number> {
  const reader = stream.getReader()
  const input = new Pieces(reader)
  let files = 0
  let paxPath: string | null = null
  try {
    for (;;) {
      const at = input.offset
      const header = await input.exactly(BLOCK, () => invalid(`it ends inside a header, at byte ${at}`))
      if (header === null) {
        if (at === 0) throw invalid('it is empty')
        return files
      }
      if (header.every((b) => b === 0)) return files
      let sum = 0
      for (let i = 0; i < BLOCK; i++) sum += i >= 148 && i < 156 ? 32 : header[i]!
      if (sum !== octal(header, 148, 8)) throw invalid(`the header at byte ${at} has a wrong checksum`)
      const size = octal(header, 124, 12)
      const type = String.fromCharCode(header[156]!)
      const pastEnd = () => invalid(`the entry at byte ${at} runs past the end`)
      const padding = Math.ceil(size / BLOCK) * BLOCK - size
      if (type === 'x' || type === 'g') {
        if (size > PAX_BYTES) throw invalid(`the pax record at byte ${at} is over ${PAX_BYTES} bytes`)
        const body = (await input.exactly(size + padding, pastEnd)) ?? new Uint8Array(0)
        if (type === 'x') {
          for (const record of decoder.decode(body.subarray(0, size)).split('\n')) {
            const match = /^\d+ path=(.*)$/s.exec(record)
            if (match) paxPath = match[1]!
          }
        }
        continue
      }
      const prefix = field(header, 345, 155)
      const name = paxPath ?? (prefix ? `${prefix}/${field(header, 0, 100)}` : field(header, 0, 100))
      paxPath = null
      if (type !== '5') {
        if (type !== '0' && type !== '\0') throw invalid(`${name} is not a regular file (type ${JSON.stringify(type)}): the workspace holds files only`)
        if (files === WORKSPACE_TAR_ENTRIES) throw invalid(`an archive may hold ${WORKSPACE_TAR_ENTRIES} files`)
        files++
        await sink.file(name, size)
        await input.forward(size, (bytes) => sink.data(bytes), pastEnd)
        await sink.end()
      } else await input.forward(size, () => {}, pastEnd)
      await input.forward(padding, () => {}, pastEnd)
    }
  } finally {
    // Whatever follows the end (or a refusal) is not read: the sender is told so.
    await reader.cancel().catch(() => {})
  }
}

/**
 * An archive held whole, read into its files (for archives already in memory: tests, tools).
 *
 * @example
 * await readTar(archive) // [{ path: 'src/a.ts', bytes: Uint8Array [...] }]
 */
export async function readTar(archive: Uint8Array): Promise<TarFile[]> {
  const files: TarFile[] = []
  let path = ''
  let parts: Uint8Array[] = []
  await readTarStream(new Blob([archive as Uint8Array<ArrayBuffer>]).stream(), {
    file: (name) => void ((path = name), (parts = [])),
    data: (bytes) => void parts.push(bytes.slice()),
    end: () => void files.push({ path, bytes: concat(parts) }),
  })
  return files
}

function concat(parts: Uint8Array[]): Uint8Array {
  const out = new Uint8Array(parts.reduce((n, part) => n + part.byteLength, 0))
  let offset = 0
  for (const part of parts) out.set(part, offset), (offset += part.byteLength)
  return out
}

function header(path: string, size: number, type: string): Uint8Array {
  const block = new Uint8Array(BLOCK)
  const put = (text: string, offset: number, length: number) => block.set(encoder.encode(text).subarray(0, length), offset)
  const number = (value: number, offset: number, length: number) => put(`${value.toString(8).padStart(length - 1, '0')}\0`, offset, length)
  put(path, 0, 100)
  number(0o644, 100, 8)
  number(0, 108, 8)
  number(0, 116, 8)
  number(size, 124, 12)
  number(0, 136, 12)
  block.fill(32, 148, 156)
  put(type, 156, 1)
  put('ustar\0', 257, 6)
  put('00', 263, 2)
  let sum = 0
  for (const b of block) sum += b
  put(`${sum.toString(8).padStart(6, '0')}\0 `, 148, 8)
  return block
}

function padding(size: number): Uint8Array {
  return new Uint8Array((BLOCK - (size % BLOCK)) % BLOCK)
}

/** The header blocks of one file: ustar, with a pax `path` record first when the name is long. */
export function tarHeader(path: string, size: number): Uint8Array[] {
  const name = encoder.encode(path)
  if (name.byteLength <= 100) return [header(path, size, '0')]
  const body = encoder.encode(` path=${path}\n`).byteLength
  // The record's length counts its own digits.
  let length = body + 1
  while (String(length).length + body !== length) length = String(length).length + body
  const pax = encoder.encode(`${length} path=${path}\n`)
  return [header('PaxHeader', pax.byteLength, 'x'), pax, padding(pax.byteLength), header(path.slice(-100), size, '0')]
}

/**
 * A tar archive of `files`, produced as it is read: one file's bytes in memory at a time.
 *
 * @example
 * new Response(tarStream(files()), { headers: { 'content-type': 'application/x-tar' } })
 */
export function tarStream(files: AsyncIterable<TarFile>): ReadableStream<Uint8Array> {
  const iterator = files[Symbol.asyncIterator]()
  let done = false
  return new ReadableStream<Uint8Array>({
    async pull(controller) {
      if (done) return
      const next = await iterator.next()
      if (next.done) {
        done = true
        controller.enqueue(new Uint8Array(BLOCK * 2))
        controller.close()
        return
      }
      const { path, bytes } = next.value
      for (const part of tarHeader(path, bytes.byteLength)) if (part.byteLength > 0) controller.enqueue(part)
      if (bytes.byteLength > 0) controller.enqueue(bytes)
      const pad = padding(bytes.byteLength)
      if (pad.byteLength > 0) controller.enqueue(pad)
    },
  })
}
