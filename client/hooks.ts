/**
 * A session's hooks, as the client sees it (docs/schedules.md#webhooks-in): create one (its secret
 * is in the answer only: give it to the sender) and list them. Deliveries are the sender's to
 * sign and post (`POST /v1/hooks/{id}`); the client does not send them.
 */
import type { Http } from './http.ts'
import type { Hook } from '../objects/session/hooks/schema.ts'

export type { Hook } from '../objects/session/hooks/schema.ts'

/**
 * @example
 * const { hook, secret } = await neuron.session('demo').hooks.create({ name: 'ci', template: 'The build said: {{body}}' })
 */
export class HooksHandle {
  readonly #http: Http
  readonly #path: string

  constructor(http: Http, session: string) {
    this.#http = http
    this.#path = `${session}/hooks`
  }

  /** The session's hooks (never their secrets). */
  async list(): Promise<Hook[]> {
    return (await this.#http.json<{ items: Hook[] }>('GET', this.#path)).items
  }

  /** Creates a hook; `secret` signs its deliveries and is shown this once. */
  create(input: { name: string; template: string; delivery?: 'queue' | 'steer' }): Promise<{ hook: Hook; secret: string }> {
    return this.#http.json('POST', this.#path, input)
  }
}
