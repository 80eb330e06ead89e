/**
 * Every /v1 route, described once for the OpenAPI document: its auth, the zod
 * schemas its handler validates with, and the error codes it can answer. A test
 * checks this table against the routes Hono actually serves.
 */
import type { z } from 'zod'
import { EnvelopeDraftSchema } from '../../objects/ledger/envelope.ts'
import { PromptSchema } from '../../objects/session/admission.ts'
import { CreateSessionSchema } from '../../objects/session/session-object.ts'
import { ListQuery, WalkQuery } from '../routes/ledgers.ts'
import { PageQuery, StreamQuery } from '../routes/sessions.ts'

export type Auth = 'none' | 'bearer' | 'bearer-or-ticket'

export interface RouteDoc {
  method: 'get' | 'post' | 'put'
  path: string
  summary: string
  auth: Auth
  body?: z.ZodType
  query?: z.ZodType
  /** Success statuses and what they mean. */
  ok: Record<number, string>
  /** Error codes this route can answer, beyond the gate's 401s. */
  errors: string[]
}

const SESSION_ERRORS = ['SESSION_NOT_FOUND', 'INVALID_SESSION_ID']
const LEDGER_ERRORS = ['INVALID_NAME']

export const ROUTES: RouteDoc[] = [
  { method: 'get', path: '/v1/openapi.json', summary: 'This OpenAPI 3.1 document', auth: 'none', ok: { 200: 'the document' }, errors: [] },
  { method: 'get', path: '/v1/docs', summary: 'A readable page of this API', auth: 'none', ok: { 200: 'HTML' }, errors: [] },
  { method: 'get', path: '/v1/me', summary: 'The authenticated principal and its claims', auth: 'bearer', ok: { 200: 'the principal' }, errors: [] },
  { method: 'get', path: '/v1/me/usage', summary: "The principal's metered requests and model usage", auth: 'bearer', ok: { 200: 'totals' }, errors: [] },
  {
    method: 'post',
    path: '/v1/sessions',
    summary: 'Create a session (client-chosen id allowed); the caller owns it',
    auth: 'bearer',
    body: CreateSessionSchema,
    ok: { 201: 'created', 200: 'the same session already existed' },
    errors: ['INVALID_JSON', 'INVALID_REQUEST', 'UNKNOWN_MODEL', 'PROVIDER_NOT_CONFIGURED', 'SESSION_EXISTS', 'PAYLOAD_TOO_LARGE'],
  },
  { method: 'get', path: '/v1/sessions/{id}', summary: 'The session projection, folded from its log', auth: 'bearer', ok: { 200: 'the session' }, errors: SESSION_ERRORS },
  {
    method: 'post',
    path: '/v1/sessions/{id}/prompt',
    summary: 'Admit a prompt durably; never waits for execution',
    auth: 'bearer',
    body: PromptSchema,
    ok: { 202: 'admitted: the inbox receipt', 200: 'exact retry: the same receipt' },
    errors: [...SESSION_ERRORS, 'INVALID_JSON', 'INVALID_REQUEST', 'PROMPT_CONFLICT', 'PAYLOAD_TOO_LARGE'],
  },
  { method: 'post', path: '/v1/sessions/{id}/interrupt', summary: 'Stop the running turn; pending prompts are kept', auth: 'bearer', ok: { 200: 'whether a turn was interrupted' }, errors: SESSION_ERRORS },
  { method: 'get', path: '/v1/sessions/{id}/history', summary: 'A finite page of durable events', auth: 'bearer', query: PageQuery, ok: { 200: 'a page' }, errors: [...SESSION_ERRORS, 'INVALID_QUERY'] },
  {
    method: 'get',
    path: '/v1/sessions/{id}/denials',
    summary: 'Denied attempts on the session (owner only, at most 100 recorded an hour)',
    auth: 'bearer',
    query: PageQuery,
    ok: { 200: 'a page, plus how many denials this hour were counted but not stored' },
    errors: [...SESSION_ERRORS, 'OWNER_REQUIRED', 'INVALID_QUERY'],
  },
  { method: 'post', path: '/v1/sessions/{id}/tickets', summary: 'Mint a one-use, 30-second ticket for a stream of this session', auth: 'bearer', ok: { 201: '{ ticket, expiresAt }' }, errors: SESSION_ERRORS },
  {
    method: 'get',
    path: '/v1/sessions/{id}/events',
    summary: 'SSE: replay after `after` / Last-Event-ID, a replay-end marker, then the live tail',
    auth: 'bearer-or-ticket',
    query: StreamQuery,
    ok: { 200: 'text/event-stream' },
    errors: [...SESSION_ERRORS, 'INVALID_QUERY', 'TICKET_REPLAYED', 'TICKET_WRONG_SESSION'],
  },
  {
    method: 'get',
    path: '/v1/sessions/{id}/ws',
    summary: 'WebSocket: subscribe from a sequence, prompt and interrupt on one socket',
    auth: 'bearer-or-ticket',
    query: StreamQuery,
    ok: { 101: 'switching protocols' },
    errors: [...SESSION_ERRORS, 'UPGRADE_REQUIRED', 'TICKET_REPLAYED', 'TICKET_WRONG_SESSION'],
  },
  {
    method: 'post',
    path: '/v1/ledgers/{name}/envelopes',
    summary: "Append an envelope to one of the caller's ledgers",
    auth: 'bearer',
    body: EnvelopeDraftSchema,
    ok: { 201: 'appended', 200: 'identical content was already there' },
    errors: [...LEDGER_ERRORS, 'INVALID_JSON', 'INVALID_ENVELOPE', 'NOT_JSON_COMPATIBLE', 'UNKNOWN_SCHEMA', 'SCHEMA_VIOLATION', 'ENVELOPE_TOO_LARGE', 'AUTHOR_MISMATCH', 'PAYLOAD_TOO_LARGE'],
  },
  { method: 'get', path: '/v1/ledgers/{name}/envelopes', summary: 'Query by topic, by type, or by time range; paged by sequence', auth: 'bearer', query: ListQuery, ok: { 200: 'a page' }, errors: [...LEDGER_ERRORS, 'INVALID_QUERY'] },
  { method: 'get', path: '/v1/ledgers/{name}/envelopes/{id}', summary: 'One envelope by content id', auth: 'bearer', ok: { 200: 'the envelope' }, errors: [...LEDGER_ERRORS, 'NOT_FOUND'] },
  { method: 'get', path: '/v1/ledgers/{name}/envelopes/{id}/ancestors', summary: 'Walk causality upward, nearest first', auth: 'bearer', query: WalkQuery, ok: { 200: 'a page' }, errors: [...LEDGER_ERRORS, 'INVALID_QUERY'] },
  { method: 'get', path: '/v1/ledgers/{name}/envelopes/{id}/descendants', summary: 'Walk causality downward, in sequence order', auth: 'bearer', query: WalkQuery, ok: { 200: 'a page' }, errors: [...LEDGER_ERRORS, 'INVALID_QUERY'] },
  { method: 'get', path: '/v1/ledgers/{name}/head', summary: 'The last sequence written', auth: 'bearer', ok: { 200: '{ seq }' }, errors: LEDGER_ERRORS },
  {
    method: 'put',
    path: '/v1/ledgers/{name}/schemas/{ref}',
    summary: 'Register a JSON Schema under an immutable ref (name@version)',
    auth: 'bearer',
    ok: { 200: 'registered (or already identical)' },
    errors: [...LEDGER_ERRORS, 'INVALID_JSON', 'INVALID_SCHEMA', 'INVALID_SCHEMA_REF', 'SCHEMA_CONFLICT'],
  },
]

/** The gate's refusals (401), common to every authenticated route. */
export const AUTH_ERRORS = [
  'TOKEN_MISSING',
  'TOKEN_MALFORMED',
  'TOKEN_ALG_REJECTED',
  'TOKEN_KID_UNKNOWN',
  'TOKEN_SIGNATURE_INVALID',
  'TOKEN_EXPIRED',
  'TOKEN_NOT_YET_VALID',
  'TOKEN_ISSUER_REJECTED',
  'TOKEN_AUDIENCE_REJECTED',
  'DEV_TOKEN_REFUSED',
]
