/**
 * `/v1/openapi.json` and `/v1/docs`: the API described, open to anyone. Both are built from every
 * route's declaration; the collector (worker/openapi/routes.ts) hands them in, since it also
 * collects these two.
 */
import { html, raw } from 'hono/html'
import { AUTH_ERRORS, openApiDocument } from '../openapi/document.ts'
import * as R from '../openapi/responses.ts'
import { type Route, type RouteDoc, route } from '../route.ts'

/**
 * The two routes that describe `all()`, the whole API.
 *
 * @example
 * const ROUTES: Route[] = [...docsRoutes(() => ROUTES), ...SESSION_ROUTES]
 */
export function docsRoutes(all: () => readonly RouteDoc[]): Route[] {
  let cached: ReturnType<typeof openApiDocument> | undefined
  return [
    route({
      method: 'get',
      path: '/v1/openapi.json',
      operationId: 'getOpenApi',
      summary: 'This OpenAPI 3.1 document',
      auth: 'none',
      ok: { 200: 'the document' },
      response: R.OpenApi,
      errors: [],
      handler: (c) => c.json((cached ??= openApiDocument(all()))),
    }),
    route({ method: 'get', path: '/v1/docs', operationId: 'getDocs', summary: 'A readable page of this API', auth: 'none', ok: { 200: 'HTML' }, response: R.HTML, errors: [], handler: (c) => c.html(page(all())) }),
  ]
}

/** The readable page: one row per route. */
function page(routes: readonly RouteDoc[]) {
  const rows = routes.map(
    (r) => `<tr><td class="m">${r.method}</td><td><code>${r.path}</code></td><td>${r.auth}</td><td>${escape(r.summary)}</td><td>${r.errors.join(', ')}</td></tr>`,
  ).join('')
  return html`<!doctype html>
      <html lang="en">
        <head>
          <meta charset="utf-8" />
          <title>Neuron API</title>
          <style>
            body { font: 15px/1.5 system-ui, sans-serif; max-width: 72rem; margin: 2rem auto; padding: 0 1rem; color: #1d1d1f; }
            table { border-collapse: collapse; width: 100%; }
            td, th { border-bottom: 1px solid #ddd; padding: .4rem .6rem; text-align: left; vertical-align: top; }
            code { font-size: 13px; }
            .m { font-weight: 600; text-transform: uppercase; }
          </style>
        </head>
        <body>
          <h1>Neuron API</h1>
          <p>
            Machine-readable: <a href="/v1/openapi.json">/v1/openapi.json</a> (OpenAPI 3.1). Authenticate with
            <code>Authorization: Bearer &lt;JWT&gt;</code>; locally <code>npm run -s token</code> prints one. Every error is
            <code>{ "error": { "code", "message", "details"? } }</code>. Authenticated routes may also answer 401 with:
            ${AUTH_ERRORS.join(', ')}.
          </p>
          <table>
            <tr><th>method</th><th>path</th><th>auth</th><th>what</th><th>error codes</th></tr>
            ${raw(rows)}
          </table>
        </body>
      </html>`
}

function escape(text: string): string {
  return text.replace(/[&<>"]/g, (ch) => `&#${ch.charCodeAt(0)};`)
}
