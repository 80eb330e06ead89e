/**
 * A small, bounded tar (ustar + the pax `path` record) reader and writer for workspace uploads and
 * downloads. Reading takes regular files (type `0` or NUL) and skips directories (`5`); links,
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

/**
 * @example
 * readTar(archive) // [{ path: 'src/a.ts', bytes: Uint8Array [...] }]
 */
export function readTar(archive: Uint8Array): TarFile[] {
  const files: TarFile[] = []
  let offset = 0
  let paxPath: string | null = null
  let ended = false
  while (offset + BLOCK <= archive.byteLength) {
    const header = archive.subarray(offset, offset + BLOCK)
    if (header.every((b) => b === 0)) {
      ended = true
      break
    }
    let sum = 0
    for (let i = 0; i < BLOCK; i++) sum += i >= 148 && i < 156 ? 32 : header[i]!
    if (sum !== octal(header, 148, 8)) throw invalid(`the header at byte ${offset} has a wrong checksum`)
    const size = octal(header, 124, 12)
    const type = String.fromCharCode(header[156]!)
    const start = offset + BLOCK
    if (start + size > archive.byteLength) throw invalid(`the entry at byte ${offset} runs past the end`)
    const body = archive.subarray(start, start + size)
    offset = start + Math.ceil(size / BLOCK) * BLOCK
    if (type === 'x') {
      for (const record of decoder.decode(body).split('\n')) {
        const match = /^\d+ path=(.*)$/s.exec(record)
        if (match) paxPath = match[1]!
      }
      continue
    }
    if (type === 'g') continue
    const prefix = field(header, 345, 155)
    const name = paxPath ?? (prefix ? `${prefix}/${field(header, 0, 100)}` : field(header, 0, 100))
    paxPath = null
    if (type === '5') continue
    if (type !== '0' && type !== '\0') throw invalid(`${name} is not a regular file (type ${JSON.stringify(type)}): the workspace holds files only`)
    if (files.length === WORKSPACE_TAR_ENTRIES) throw invalid(`an archive may hold ${WORKSPACE_TAR_ENTRIES} files`)
    files.push({ path: name, bytes: body.slice() })
  }
  if (!ended && offset !== archive.byteLength) throw invalid(`it ends inside a header, at byte ${offset} of ${archive.byteLength}`)
  if (archive.byteLength === 0) throw invalid('it is empty')
  return files
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
