/**
 * The typed Neuron client: public HTTP API only, for Node ≥ 20, browsers and Workers.
 *
 * @example
 * const neuron = new NeuronClient({ url: 'http://127.0.0.1:8787', token })
 * const session = await neuron.createSession({ model: 'local/echo-1' })
 * await session.prompt('hello')
 * for await (const frame of session.events()) if (frame.kind === 'event') console.log(frame.envelope.type)
 */
import { type ClientOptions, Http } from './http.ts'
import { SessionHandle } from './session.ts'
import { SessionSocket, type SocketOptions } from './socket.ts'
import type { CreateSessionInput, SessionView } from './types.ts'

export { NeuronApiError } from './errors.ts'
export type { ClientOptions } from './http.ts'
export type { FollowOptions, SessionHandle } from './session.ts'
export type { SessionSocket, SocketOptions } from './socket.ts'
export type * from './types.ts'

export class NeuronClient {
  readonly #http: Http

  constructor(options: ClientOptions) {
    this.#http = new Http(options)
  }

  get url(): string {
    return this.#http.url
  }

  /** Who the token says you are: `{ id, issuer, subject, claims, via }`. */
  me(): Promise<{ id: string; issuer: string; subject: string; claims: string[]; via: string }> {
    return this.#http.json('GET', '/v1/me')
  }

  /** Creates a session (the same request again is a no-op) and returns its handle. */
  async createSession(input: CreateSessionInput = {}): Promise<SessionHandle & { created: SessionView }> {
    const view = await this.#http.json<SessionView>('POST', '/v1/sessions', input)
    return Object.assign(new SessionHandle(this.#http, view.id), { created: view })
  }

  /** A handle on an existing session (nothing is fetched until you call it). */
  session(id: string): SessionHandle {
    return new SessionHandle(this.#http, id)
  }

  /** WebSocket mode for a session, authenticated by tickets. */
  socket(id: string, options: Omit<SocketOptions, 'url'> = {}): SessionSocket {
    return new SessionSocket(this.session(id), { ...options, url: this.#http.url })
  }
}
