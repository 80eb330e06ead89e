/**
 * The caller's uploaded tool modules: upload a version, list them, read one with its code, retire
 * one. A module's tools are offered to the caller's sessions from their next turn. See
 * docs/extending.md#uploaded-tool-modules.
 */
import type { Http } from './http.ts'
import type { ModuleUploadInput, ModuleVersion, StoredModule } from './types.ts'

export class ModulesClient {
  readonly #http: Http

  constructor(http: Http) {
    this.#http = http
  }

  /**
   * Uploads a new version of a module; it is checked whole (and its code loaded once) before it is stored.
   *
   * @example
   * const { version } = await neuron.modules.upload({ module: 'weather', code, tools: [{ name: 'weather_now', description: 'The weather now', input, output }] })
   */
  upload(upload: ModuleUploadInput): Promise<StoredModule> {
    return this.#http.json('POST', '/v1/modules', upload)
  }

  /** The caller's modules, each at its current version (declarations, no code). */
  async list(): Promise<ModuleVersion[]> {
    return (await this.#http.json<{ items: ModuleVersion[] }>('GET', '/v1/modules')).items
  }

  /** A module's current version with its code. */
  get(module: string): Promise<ModuleVersion & { code: string }> {
    return this.#http.json('GET', `/v1/modules/${encodeURIComponent(module)}`)
  }

  /** Retires a module: its tools leave the caller's sessions at their next turn. */
  retire(module: string): Promise<{ module: string; retired: boolean }> {
    return this.#http.json('DELETE', `/v1/modules/${encodeURIComponent(module)}`)
  }
}
