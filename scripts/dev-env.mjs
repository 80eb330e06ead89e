/**
 * The environment `wrangler dev` runs under, for `npm start` and every test server
 * (test/support/wrangler.ts); a variable already set in the caller's environment wins.
 *
 * - `CLOUDFLARE_CF_FETCH_ENABLED=false`: no `Request.cf` lookup at start (Neuron never reads
 *   `request.cf`; offline the lookup printed a DNS stack trace twice per start).
 * - `X_LOCAL_OBSERVABILITY=false`: no local trace collector. It is a SQLite Durable Object in the
 *   same process that stores every invocation's spans on the one thread all objects share: it
 *   doubled a 200-package orchestration's CPU (about 85 ms per package off, 170 ms on) and queued
 *   every request behind its writes. A deployment has no such collector.
 *
 * @example
 * spawn(node, [dev], { env: { ...DEV_PROCESS_ENV, ...process.env } })
 */
export const DEV_PROCESS_ENV = { CLOUDFLARE_CF_FETCH_ENABLED: 'false', X_LOCAL_OBSERVABILITY: 'false' }
