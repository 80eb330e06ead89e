/**
 * The OpenAPI 3.1 document, generated from the routes' declarations (worker/route.ts) and their
 * zod schemas (JSON Schema 2020-12, which OpenAPI 3.1 uses as is).
 */
import { z } from 'zod'
import type { ResponseBody, RouteDoc } from '../route.ts'
import { Components } from './components.ts'

/**
 * Codes any route can answer, all 500s: an unexpected failure (`INTERNAL`), a deployment whose
 * auth or model configuration is broken, and a spilled payload whose artifact is gone.
 */
export const COMMON_ERRORS = ['INTERNAL', 'AUTH_MISCONFIGURED', 'INVALID_CONFIG', 'ARTIFACT_MISSING']

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

const ErrorBody = {
  type: 'object',
  required: ['error'],
  properties: {
    error: {
      type: 'object',
      required: ['code', 'message'],
      properties: { code: { type: 'string' }, message: { type: 'string' }, details: { type: 'object' } },
    },
  },
}

/** A zod schema as JSON Schema whose shared parts live in the document's `components`. */
function jsonSchema(schema: z.ZodType, components: Components): Record<string, unknown> {
  const generated = z.toJSONSchema(schema, { target: 'draft-2020-12', io: 'input', unrepresentable: 'any' }) as Record<string, unknown>
  const { $schema: _dialect, ...rest } = generated
  return components.adopt(rest)
}

function content(body: ResponseBody) {
  if ('mediaType' in body && typeof body.mediaType === 'string') return { [body.mediaType]: { schema: body.schema } }
  return { 'application/json': { schema: body } }
}

function operation(route: RouteDoc, components: Components) {
  const params = [...route.path.matchAll(/\{(\w+)\}/g)].map(([, name]) => ({ name, in: 'path', required: true, schema: { type: 'string' } }))
  const query = route.query ? (jsonSchema(route.query, components) as { properties?: Record<string, unknown>; required?: string[] }) : undefined
  const queryParams = Object.entries(query?.properties ?? {}).map(([name, schema]) => ({
    name,
    in: 'query',
    required: query?.required?.includes(name) ?? false,
    schema,
  }))
  const errors = [...route.errors, ...(route.auth === 'none' ? [] : AUTH_ERRORS), ...COMMON_ERRORS]
  const security = route.auth === 'none' ? [] : route.auth === 'bearer' ? [{ bearer: [] }] : [{ bearer: [] }, { ticket: [] }]
  const ok = Object.fromEntries(
    Object.entries(route.ok).map(([status, description]) => [status, status === '101' || !route.response ? { description } : { description, content: content(route.response) }]),
  )
  const failure = {
    description: `An error. Codes: ${errors.join(', ')}`,
    content: { 'application/json': { schema: { $ref: '#/components/schemas/Error' } } },
  }
  const failures = Object.fromEntries(Object.entries(route.failures ?? {}).map(([status, { description, response }]) => [status, { description, content: content(response) }]))
  return {
    operationId: route.operationId,
    summary: route.summary,
    security,
    parameters: [...params, ...queryParams],
    ...(route.body ? { requestBody: { required: true, content: { 'application/json': { schema: jsonSchema(route.body, components) } } } } : {}),
    ...(route.rawBody ? { requestBody: { required: true, content: { [route.rawBody.mediaType]: { schema: route.rawBody.schema } } } } : {}),
    responses: { ...ok, ...failures, default: failure },
    'x-error-codes': errors,
    ...(route.maxBodyBytes === undefined ? {} : { 'x-max-body-bytes': route.maxBodyBytes }),
  }
}

/**
 * The document of `routes`, in their order.
 *
 * @example
 * openApiDocument(ROUTES).paths['/v1/sessions'].post.summary
 */
export function openApiDocument(routes: readonly RouteDoc[]) {
  const paths: Record<string, Record<string, unknown>> = {}
  const components = new Components({ Error: ErrorBody })
  for (const route of routes) (paths[route.path] ??= {})[route.method] = operation(route, components)
  return {
    openapi: '3.1.0',
    info: { title: 'Neuron', version: '1', description: 'Durable AI-agent sessions on Cloudflare Durable Objects.' },
    components: {
      securitySchemes: {
        bearer: { type: 'http', scheme: 'bearer', bearerFormat: 'JWT' },
        ticket: { type: 'apiKey', in: 'query', name: 'ticket', description: 'One-use stream ticket from POST /v1/sessions/{id}/tickets' },
      },
      schemas: components.schemas,
    },
    paths,
  }
}
