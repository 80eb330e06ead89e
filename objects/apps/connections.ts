/**
 * `connections.*`: a person's credentials for an external service, per app
 * (an OAuth token, an API key). Sealed with the deployment secret by the same
 * code that seals principals' provider keys (objects/config/credentials.ts),
 * bound to the person and to `app:<app>/<name>`, so a ciphertext copied to
 * another person, app or name does not open. Write-only through the API: a
 * listing names connections and when they were set; only the kernel's reveal
 * (a claim-authorized route for the shell's live background) opens one.
 */
import { z } from 'zod'

/** The topic sealed connection sets are written to in an installation's ledger. */
export const CONNECTIONS_TOPIC = 'app.connections'

/** The claim a caller needs to open a connection: held by the shell's kernel, never by an app. */
export const REVEAL_CLAIM = 'scope:apps.connections.reveal'

/** A connection's name in routes. */
export const ConnectionName = z.string().regex(/^[A-Za-z0-9_-]{1,64}$/, 'must be 1–64 of [A-Za-z0-9_-]')

/** The body of `PUT /v1/apps/installs/{app}/connections/{name}`. */
export const ConnectionBody = z.strictObject({ secret: z.string().min(1).max(4096) })

/** What a listing says about a connection: never its secret. */
export interface ConnectionInfo {
  name: string
  setAt: string
}

/**
 * What a connection's secret is sealed to, beside the person.
 *
 * @example
 * connectionBinding('mail', 'imap') // 'app:mail/imap'
 */
export function connectionBinding(app: string, name: string): string {
  return `app:${app}/${name}`
}
