/**
 * What every app page is served with, whether the shell's build wrote it
 * (shell-web/build.ts, `_headers`) or it is a file of an installed package
 * (worker/routes/app-frames.ts): one CSP, and a content type chosen by the
 * file's extension. Pure, so the Node build and the worker share it.
 *
 * @example
 * new Response(file, { headers: { 'content-type': contentType('tile.js'), 'content-security-policy': APP_CSP } })
 */

/**
 * The CSP of every app page, built or packaged: sandboxed and opaque even when opened directly, no
 * network (`connect-src 'none'`). `worker-src blob:` lets a frame start a dedicated Worker from a
 * script it built itself (it inherits this policy, so it has no network either).
 */
export const APP_CSP =
  "sandbox allow-scripts allow-forms; default-src 'none'; script-src 'self'; worker-src blob:; style-src 'self' 'unsafe-inline'; img-src 'self' data:; connect-src 'none'; frame-ancestors 'self'; base-uri 'none'; form-action 'none'"

/** The content type a package file is served with, by its extension (text by default: never sniffed as a page). */
export function contentType(path: string): string {
  const ext = path.slice(path.lastIndexOf('.') + 1).toLowerCase()
  return TYPES[ext] ?? 'text/plain; charset=utf-8'
}

const TYPES: Record<string, string> = {
  html: 'text/html; charset=utf-8',
  js: 'text/javascript; charset=utf-8',
  mjs: 'text/javascript; charset=utf-8',
  css: 'text/css; charset=utf-8',
  json: 'application/json',
  svg: 'image/svg+xml',
  txt: 'text/plain; charset=utf-8',
}

