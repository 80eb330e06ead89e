/**
 * A /v1 route, declared once beside its handler: method, path, auth, the zod schemas of its query
 * and body, its body limit, its success bodies, the error codes it documents, and the handler.
 * The OpenAPI document and /v1/docs are collected from these declarations
 * (worker/openapi/routes.ts), and each area's Hono router is mounted from the same objects, so
 * what is documented is what is served: the body limit is enforced from `maxBodyBytes`, the path
 * Hono matches is the documented one, and the handler's path parameters are typed from it.
 */
import { type Context, Hono } from 'hono'
import type { z } from 'zod'
import { limitBody, limitStream } from './body-limit.ts'
import type { AppEnv } from './env.ts'

export type Auth = 'none' | 'bearer' | 'bearer-or-ticket'

/** A success body: a JSON Schema, or a non-JSON media type with its schema. */
export type ResponseBody = Record<string, unknown> | { mediaType: string; schema: Record<string, unknown> }

/** What the document says of a route: everything a declaration holds but its handler. */
export interface RouteDoc {
  method: 'get' | 'post' | 'put' | 'patch' | 'delete'
  /** The documented path, parameters in braces (`/v1/sessions/{id}`). */
  path: string
  /** Unique, stable name of the operation (what generated clients call it). */
  operationId: string
  summary: string
  auth: Auth
  body?: z.ZodType
  /** A body that is not JSON (a file's bytes, a tar archive): its media type and schema. */
  rawBody?: { mediaType: string; schema: Record<string, unknown> }
  /** The largest body the route reads; larger is 413 `PAYLOAD_TOO_LARGE` before it is read (enforced by `mount`). */
  maxBodyBytes?: number
  /** The body reaches the handler as a stream, counted against `maxBodyBytes` as it is read and never held whole (`limitStream`). */
  streamBody?: true
  query?: z.ZodType
  /** Success statuses and what they mean. */
  ok: Record<number, string>
  /** The body of every success status but 101. */
  response?: ResponseBody
  /** Error codes this route can answer, beyond the gate's 401s and `COMMON_ERRORS`. */
  errors: string[]
  /** Failure statuses whose body is not the `{ error: { code } }` shape (the MCP transport's JSON-RPC errors). */
  failures?: Record<number, { description: string; response: ResponseBody }>
}

/** `/v1/sessions/{id}/prompt` → `/v1/sessions/:id/prompt`, as a type, so a handler's params are typed. */
export type HonoPath<P extends string> = P extends `${infer Head}{${infer Name}}${infer Tail}` ? `${Head}:${Name}${HonoPath<Tail>}` : P

/** A declared route: its document and its handler. */
export interface Route extends RouteDoc {
  /** `any` path: the path type is erased once declared; `route()` checked the handler against it. */
  handler: (c: Context<AppEnv, any>) => Response | Promise<Response>
}

/**
 * Declares a route; the handler's `c.req.param(…)` knows the path's parameters.
 *
 * @example
 * route({ method: 'get', path: '/v1/me', operationId: 'getMe', summary: 'The principal', auth: 'bearer', ok: { 200: 'the principal' }, errors: [], handler: (c) => c.json(callerOf(c)) })
 */
export function route<const P extends string>(declaration: RouteDoc & { path: P; handler: (c: Context<AppEnv, HonoPath<P>>) => Response | Promise<Response> }): Route {
  return declaration as Route
}

/**
 * The Hono router of one area: every route of `routes`, at its path below `base` (where the area
 * is mounted), behind `limitBody` when it declares `maxBodyBytes` (`limitStream` when its body streams).
 *
 * @example
 * export const sessions = mount('/v1/sessions', SESSION_ROUTES) // app.route('/v1/sessions', sessions)
 */
export function mount(base: string, routes: readonly Route[]): Hono<AppEnv> {
  const router = new Hono<AppEnv>()
  for (const declared of routes) {
    // `/v1/memory/…` is not under `/v1/me`: a whole segment must match.
    if (declared.path !== base && !declared.path.startsWith(`${base}/`)) throw new Error(`${declared.path} is not under ${base}`)
    const path = declared.path.slice(base.length).replace(/\{(\w+)\}/g, ':$1') || '/'
    const method = declared.method.toUpperCase()
    if (declared.maxBodyBytes === undefined) router.on(method, path, declared.handler)
    else router.on(method, path, (declared.streamBody ? limitStream : limitBody)(declared.maxBodyBytes), declared.handler)
  }
  return router
}
