/**
 * `/v1/openapi.json` and `/v1/docs`: the API described, open to anyone.
 */
import { Hono } from 'hono'
import { html, raw } from 'hono/html'
import type { AppEnv } from '../env.ts'
import { openApiDocument } from '../openapi/document.ts'
import { AUTH_ERRORS, ROUTES } from '../openapi/routes.ts'
import { CALLBACK_PATH } from './oauth.ts'

/**
 * Routes the gate lets through without a credential: the dev sign-in checks its own conditions, and
 * the MCP OAuth callback's sealed state is its credential.
 */
export const OPEN_ROUTES = ['/v1/openapi.json', '/v1/docs', '/v1/dev/token', CALLBACK_PATH]

let cached: ReturnType<typeof openApiDocument> | undefined

export const docs = new Hono<AppEnv>()
  .get('/openapi.json', (c) => c.json((cached ??= openApiDocument())))
  .get('/docs', (c) => {
    const rows = ROUTES.map(
      (r) => `<tr><td class="m">${r.method}</td><td><code>${r.path}</code></td><td>${r.auth}</td><td>${escape(r.summary)}</td><td>${r.errors.join(', ')}</td></tr>`,
    ).join('')
    return c.html(html`<!doctype html>
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
      </html>`)
  })

function escape(text: string): string {
  return text.replace(/[&<>"]/g, (ch) => `&#${ch.charCodeAt(0)};`)
}
