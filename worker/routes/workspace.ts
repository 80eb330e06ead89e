/**
 * `/v1/sessions/{id}/workspace`: a session's files (docs/workspace.md). List a directory, read a
 * file (whole, a byte range or a line range, at any sequence), upload one file or a tar archive
 * (the owner only; the body streamed to the session, which reads it as it arrives; one operation,
 * refused whole with nothing written), download the tree as tar,
 * and the paths that differ between two sequences. File paths travel in the query (`path=`), since
 * a path holds slashes. Mounted under `/v1/sessions` beside the session routes.
 */
import { WORKSPACE_TAR_BYTES, WORKSPACE_UPLOAD_BYTES } from '../../objects/core/limits.ts'
import { DiffQuery, FileQuery, ListQuery, ReadQuery } from '../../objects/session/workspace/workspace-schemas.ts'
import { callerOf } from '../caller.ts'
import { sessionStub } from '../session-calls.ts'
import { mount, route } from '../route.ts'

const SESSION_ERRORS = ['SESSION_NOT_FOUND', 'INVALID_SESSION_ID']
const PATH_ERRORS = ['PATH_INVALID', 'PATH_ESCAPE']
const WRITE_ERRORS = [...PATH_ERRORS, 'PAYLOAD_TOO_LARGE', 'FILE_TOO_LARGE', 'WORKSPACE_FULL', 'NOT_A_DIRECTORY', 'IS_A_DIRECTORY', 'WORKSPACE_OWNER_ONLY']

const str = { type: 'string' }
const int = { type: 'integer' }
const FileEntry = { type: 'object', required: ['path', 'content', 'size'], properties: { path: str, content: str, size: int } }
const Listing = { type: 'object', required: ['entries', 'next'], properties: { entries: { type: 'array', items: FileEntry }, next: { type: ['string', 'null'] } } }
const Change = { type: 'object', required: ['path', 'before', 'after', 'size', 'by', 'seq'], properties: { path: str, before: { type: ['string', 'null'] }, after: { type: ['string', 'null'] }, size: int, by: str, seq: int } }
const Committed = { type: 'object', required: ['changes', 'totals'], properties: { changes: { type: 'array', items: Change }, totals: { type: 'object', properties: { files: int, bytes: int } } } }
const Diff = {
  type: 'object',
  required: ['differences', 'next'],
  properties: { differences: { type: 'array', items: { type: 'object', properties: { path: str, before: { type: ['string', 'null'] }, after: { type: ['string', 'null'] } } } }, next: { type: ['integer', 'null'] } },
}

/** The query as a plain object (Hono's has no prototype, which RPC cannot serialize). */
function query(c: { req: { query(): Record<string, string> } }): Record<string, string> {
  return { ...c.req.query() }
}

/** The body as the stream the session reads as it arrives (an empty body: an empty stream). */
function body(request: Request): ReadableStream<Uint8Array> {
  return request.body ?? new Blob([]).stream()
}

/**
 * The workspace routes, declared once with their handlers.
 *
 * @example
 * WORKSPACE_ROUTES.map((r) => `${r.method} ${r.path}`)
 */
export const WORKSPACE_ROUTES = [
  route({
    method: 'get',
    path: '/v1/sessions/{id}/workspace',
    operationId: 'listWorkspace',
    summary: 'A page of the workspace files under `dir` (default the root) as of sequence `at` (default now), in path order',
    auth: 'bearer',
    query: ListQuery,
    ok: { 200: 'a page of files' },
    response: Listing,
    errors: [...SESSION_ERRORS, ...PATH_ERRORS, 'INVALID_QUERY'],
    handler: async (c) => c.json(await (await sessionStub(c.env, c.req.param('id'))).workspaceList(callerOf(c), query(c))),
  }),
  route({
    method: 'get',
    path: '/v1/sessions/{id}/workspace/file',
    operationId: 'readWorkspaceFile',
    summary: 'One workspace file as of `at`: whole, a byte range (`offset`, `length`) or a line range (`line`, `lines`); its content id in `etag`',
    auth: 'bearer',
    query: ReadQuery,
    ok: { 200: 'the bytes' },
    response: { mediaType: 'application/octet-stream', schema: { type: 'string', format: 'binary' } },
    errors: [...SESSION_ERRORS, ...PATH_ERRORS, 'INVALID_QUERY', 'FILE_NOT_FOUND'],
    handler: async (c) => {
      const read = await (await sessionStub(c.env, c.req.param('id'))).workspaceRead(callerOf(c), query(c))
      return new Response(read.bytes, {
        headers: { 'content-type': 'application/octet-stream', etag: `"${read.content}"`, 'x-file-size': String(read.size), 'x-range': `${read.range.start}-${read.range.end}` },
      })
    },
  }),
  route({
    method: 'put',
    path: '/v1/sessions/{id}/workspace/file',
    operationId: 'uploadWorkspaceFile',
    summary: "Write one workspace file (`path`) with the body's bytes, the session's owner only; past a limit nothing is written",
    auth: 'bearer',
    query: FileQuery,
    rawBody: { mediaType: 'application/octet-stream', schema: { type: 'string', format: 'binary' } },
    maxBodyBytes: WORKSPACE_UPLOAD_BYTES,
    streamBody: true,
    ok: { 200: 'the changes recorded (none when the bytes are already there) and the totals' },
    response: Committed,
    errors: [...SESSION_ERRORS, ...WRITE_ERRORS, 'INVALID_QUERY'],
    handler: async (c) => {
      const stub = await sessionStub(c.env, c.req.param('id'))
      return c.json(await stub.workspaceUpload(callerOf(c), query(c), body(c.req.raw)))
    },
  }),
  route({
    method: 'put',
    path: '/v1/sessions/{id}/workspace/tar',
    operationId: 'uploadWorkspaceTar',
    summary: 'Write every file of a tar archive as one operation, the owner only: all of them, or (any refused) none',
    auth: 'bearer',
    rawBody: { mediaType: 'application/x-tar', schema: { type: 'string', format: 'binary' } },
    maxBodyBytes: WORKSPACE_TAR_BYTES,
    streamBody: true,
    ok: { 200: 'the changes recorded and the totals' },
    response: Committed,
    errors: [...SESSION_ERRORS, ...WRITE_ERRORS, 'TAR_INVALID'],
    handler: async (c) => {
      const stub = await sessionStub(c.env, c.req.param('id'))
      return c.json(await stub.workspaceUploadTar(callerOf(c), body(c.req.raw)))
    },
  }),
  route({
    method: 'get',
    path: '/v1/sessions/{id}/workspace/tar',
    operationId: 'downloadWorkspaceTar',
    summary: 'The workspace (or the directory `dir`) as of `at`, as a tar archive streamed one file at a time',
    auth: 'bearer',
    query: ListQuery,
    ok: { 200: 'the archive' },
    response: { mediaType: 'application/x-tar', schema: { type: 'string', format: 'binary' } },
    errors: [...SESSION_ERRORS, ...PATH_ERRORS, 'INVALID_QUERY'],
    handler: async (c) => {
      const stream = await (await sessionStub(c.env, c.req.param('id'))).workspaceTar(callerOf(c), query(c))
      return new Response(stream as ReadableStream, { headers: { 'content-type': 'application/x-tar' } })
    },
  }),
  route({
    method: 'get',
    path: '/v1/sessions/{id}/workspace/diff',
    operationId: 'diffWorkspace',
    summary: 'The paths that differ between sequences `from` and `to` (default now), each once with its content id at both ends',
    auth: 'bearer',
    query: DiffQuery,
    ok: { 200: 'a page of differences' },
    response: Diff,
    errors: [...SESSION_ERRORS, 'INVALID_QUERY'],
    handler: async (c) => c.json(await (await sessionStub(c.env, c.req.param('id'))).workspaceDiff(callerOf(c), query(c))),
  }),
]

/** The workspace router, mounted by worker/index.ts beside the session routes. */
export const workspace = mount('/v1/sessions', WORKSPACE_ROUTES)
