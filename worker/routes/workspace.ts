/**
 * `/v1/sessions/{id}/workspace`: a session's files (docs/workspace.md). List a directory, read a
 * file (whole, a byte range or a line range, at any sequence), upload one file or a tar archive
 * (the owner only; the body streamed to the session, which reads it as it arrives; one operation,
 * refused whole with nothing written), download the tree as tar,
 * and the paths that differ between two sequences. File paths travel in the query (`path=`), since
 * a path holds slashes. Mounted under `/v1/sessions` beside the session routes. The read routes are
 * declared once for both owners of a workspace: a session, and an orchestration whose packages
 * share one (`/v1/orchestrations/{id}/workspace…`, read-only: only its packages' tools write it).
 */
import { WORKSPACE_TAR_BYTES, WORKSPACE_UPLOAD_BYTES } from '../../objects/core/limits.ts'
import { DiffQuery, FileQuery, ListQuery, ReadQuery } from '../../objects/workspace/queries.ts'
import type { Context } from 'hono'
import type { Caller } from '../../objects/access/authorize.ts'
import type { Env } from '../../objects/core/env.ts'
import type { FileRead } from '../../objects/workspace/calls.ts'
import { callerOf } from '../caller.ts'
import type { AppEnv } from '../env.ts'
import { sessionStub } from '../session-calls.ts'
import { mount, route } from '../route.ts'
import { orchestrationStub } from './orchestrations.ts'

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

/** What the read routes call: a session's stub, or an orchestration's (its shared workspace). */
interface WorkspaceReader {
  workspaceList(caller: Caller, query: unknown): Promise<unknown>
  workspaceRead(caller: Caller, query: unknown): Promise<FileRead>
  workspaceTar(caller: Caller, query: unknown): Promise<unknown>
  workspaceDiff(caller: Caller, query: unknown): Promise<unknown>
}

/**
 * The read routes of a workspace (list, read, tar, diff) under `{base}/{id}/workspace`, declared
 * once for both owners of a workspace: a session, and an orchestration whose packages share one.
 * `noun` names the owner in the operation ids (`listWorkspace`, `listOrchestrationWorkspace`).
 *
 * @example
 * readRoutes('/v1/orchestrations', 'Orchestration', orchestrationStub, ['ORCHESTRATION_NOT_FOUND'])
 */
function readRoutes(base: '/v1/sessions' | '/v1/orchestrations', noun: '' | 'Orchestration', stubOf: (env: Env, id: string) => Promise<WorkspaceReader>, ownerErrors: string[]) {
  const at = (c: Context<AppEnv>) => stubOf(c.env, c.req.param('id')!)
  const whose = noun === '' ? 'the workspace' : "the orchestration's shared workspace"
  return [
    route({
      method: 'get',
      path: `${base}/{id}/workspace`,
      operationId: `list${noun}Workspace`,
      summary: `A page of the files of ${whose} under \`dir\` (default the root) as of sequence \`at\` (default now), in path order`,
      auth: 'bearer',
      query: ListQuery,
      ok: { 200: 'a page of files' },
      response: Listing,
      errors: [...ownerErrors, ...PATH_ERRORS, 'INVALID_QUERY'],
      handler: async (c) => c.json((await (await at(c)).workspaceList(callerOf(c), query(c))) as Record<string, unknown>),
    }),
    route({
      method: 'get',
      path: `${base}/{id}/workspace/file`,
      operationId: `read${noun}WorkspaceFile`,
      summary: `One file of ${whose} as of \`at\`: whole, a byte range (\`offset\`, \`length\`) or a line range (\`line\`, \`lines\`); its content id in \`etag\``,
      auth: 'bearer',
      query: ReadQuery,
      ok: { 200: 'the bytes' },
      response: { mediaType: 'application/octet-stream', schema: { type: 'string', format: 'binary' } },
      errors: [...ownerErrors, ...PATH_ERRORS, 'INVALID_QUERY', 'FILE_NOT_FOUND'],
      handler: async (c) => {
        const read = await (await at(c)).workspaceRead(callerOf(c), query(c))
        return new Response(read.bytes, {
          headers: { 'content-type': 'application/octet-stream', etag: `"${read.content}"`, 'x-file-size': String(read.size), 'x-range': `${read.range.start}-${read.range.end}` },
        })
      },
    }),
    route({
      method: 'get',
      path: `${base}/{id}/workspace/tar`,
      operationId: `download${noun}WorkspaceTar`,
      summary: `${noun === '' ? 'The workspace' : "The orchestration's shared workspace"} (or the directory \`dir\`) as of \`at\`, as a tar archive streamed one file at a time`,
      auth: 'bearer',
      query: ListQuery,
      ok: { 200: 'the archive' },
      response: { mediaType: 'application/x-tar', schema: { type: 'string', format: 'binary' } },
      errors: [...ownerErrors, ...PATH_ERRORS, 'INVALID_QUERY'],
      handler: async (c) => {
        const stream = await (await at(c)).workspaceTar(callerOf(c), query(c))
        return new Response(stream as ReadableStream, { headers: { 'content-type': 'application/x-tar' } })
      },
    }),
    route({
      method: 'get',
      path: `${base}/{id}/workspace/diff`,
      operationId: `diff${noun}Workspace`,
      summary: `The paths of ${whose} that differ between sequences \`from\` and \`to\` (default now), each once with its content id at both ends`,
      auth: 'bearer',
      query: DiffQuery,
      ok: { 200: 'a page of differences' },
      response: Diff,
      errors: [...ownerErrors, 'INVALID_QUERY'],
      handler: async (c) => c.json((await (await at(c)).workspaceDiff(callerOf(c), query(c))) as Record<string, unknown>),
    }),
  ]
}

/**
 * The workspace routes, declared once with their handlers.
 *
 * @example
 * WORKSPACE_ROUTES.map((r) => `${r.method} ${r.path}`)
 */
export const WORKSPACE_ROUTES = [
  ...readRoutes('/v1/sessions', '', sessionStub, SESSION_ERRORS),
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
]

/** The workspace router, mounted by worker/neuron.ts beside the session routes. */
export const workspace = mount('/v1/sessions', WORKSPACE_ROUTES)

/** `/v1/orchestrations/{id}/workspace…`: the owner's reads of an orchestration's shared workspace (docs/orchestration.md). */
export const ORCHESTRATION_WORKSPACE_ROUTES = readRoutes('/v1/orchestrations', 'Orchestration', orchestrationStub, ['ORCHESTRATION_NOT_FOUND', 'INVALID_ORCHESTRATION_ID'])

/** Mounted by worker/neuron.ts beside the orchestration routes. */
export const orchestrationWorkspace = mount('/v1/orchestrations', ORCHESTRATION_WORKSPACE_ROUTES)
