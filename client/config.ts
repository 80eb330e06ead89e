/**
 * The caller's config document (append-only versions with ETags), its JSON
 * Schema, and the caller's stored provider keys (write-only: a listing says
 * which providers have one, never the key).
 */
import type { Http } from './http.ts'
import type { ConfigInput, ConfigVersion, CredentialEntry } from './types.ts'

export class ConfigClient {
  readonly #http: Http
  readonly #path: string

  /** `path` is `/v1/config`, or a session's `/v1/sessions/{id}/config` (its overrides). */
  constructor(http: Http, path = '/v1/config') {
    this.#http = http
    this.#path = path
  }

  /** The current version (version 0: never written). */
  get(): Promise<ConfigVersion> {
    return this.#http.json('GET', this.#path)
  }

  /**
   * Writes a new version. With `ifMatch` (the ETag you read) a concurrent
   * writer's version makes this fail with `PRECONDITION_FAILED` instead of
   * overwriting it.
   *
   * @example
   * const current = await neuron.config.get()
   * await neuron.config.put({ ...current.document, instructions: 'Answer briefly.' }, { ifMatch: current.etag })
   */
  async put(document: ConfigInput, options: { ifMatch?: string } = {}): Promise<ConfigVersion> {
    const headers: Record<string, string> = options.ifMatch ? { 'if-match': options.ifMatch } : {}
    return (await (await this.#http.send('PUT', this.#path, document, { headers })).json()) as ConfigVersion
  }
}

/** The principal-wide document, plus its schema and credentials. */
export class OwnerConfigClient extends ConfigClient {
  readonly #http: Http

  constructor(http: Http) {
    super(http)
    this.#http = http
  }

  /** The JSON Schema the document follows. */
  schema(): Promise<Record<string, unknown>> {
    return this.#http.json('GET', '/v1/config/schema.json')
  }

  /** Which providers have a stored key, and when it was set. */
  async credentials(): Promise<CredentialEntry[]> {
    return (await this.#http.json<{ items: CredentialEntry[] }>('GET', '/v1/config/credentials')).items
  }

  /** Stores (replaces) the caller's key for `provider`; the key is never readable again. */
  setCredential(provider: string, apiKey: string): Promise<CredentialEntry> {
    return this.#http.json('PUT', `/v1/config/credentials/${encodeURIComponent(provider)}`, { apiKey })
  }

  deleteCredential(provider: string): Promise<{ provider: string; deleted: boolean }> {
    return this.#http.json('DELETE', `/v1/config/credentials/${encodeURIComponent(provider)}`)
  }
}
