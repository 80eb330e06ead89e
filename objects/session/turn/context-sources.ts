/**
 * Context sources: independently observed facts the model is told about, each
 * under a stable namespaced key (`env.date`, `env.model`, later
 * `config.instructions`, `skills.index`, `memory.pinned`). A loader returns a
 * value or throws; a value that is not there yet (a slow or failed load) is
 * `UNAVAILABLE`, and the last good value is served while a new one loads
 * (stale while revalidating), so a source never blocks a turn.
 *
 * The snapshot taken when a context epoch starts is part of its baseline;
 * later changes reach the model only at a safe boundary between provider
 * turns, as a durable `context.changed` message (see runner.ts).
 */
import { NeuronError } from '../../core/errors.ts'
import type { Json } from '../../ledger/json.ts'

/** A source that has no value yet (its first load is running, or failed). */
export const UNAVAILABLE = { unavailable: true } as const
export type SourceValue = Json | typeof UNAVAILABLE

/** What a loader may look at. */
export interface SourceInput {
  sessionId: string
  provider: string
  model: string
  now: number
}

export type Loader = (input: SourceInput) => Json | Promise<Json>

const KEY = /^[a-z][a-z0-9_-]*(\.[a-z0-9_-]+)+$/

/**
 * @example
 * const sources = new ContextSources()
 * sources.register('env.date', ({ now }) => new Date(now).toISOString().slice(0, 10))
 * sources.register('memory.pinned', (input) => graph.pinned(input.sessionId))  // async is fine
 * sources.snapshot(input) // { 'env.date': '2026-11-30', 'memory.pinned': { unavailable: true } } at first
 */
export class ContextSources {
  private readonly loaders = new Map<string, Loader>()
  private readonly last = new Map<string, Json>()
  private readonly loading = new Set<string>()

  register(key: string, loader: Loader): this {
    if (!KEY.test(key)) throw new NeuronError('INVALID_SOURCE_KEY', `context source key ${key} must be namespaced, e.g. env.date`)
    this.loaders.set(key, loader)
    return this
  }

  /** Every source's current value, without waiting: synchronous loaders answer now, others from their last load. */
  snapshot(input: SourceInput): Record<string, SourceValue> {
    const out: Record<string, SourceValue> = {}
    for (const [key, loader] of this.loaders) {
      this.refresh(key, loader, input)
      out[key] = this.last.has(key) ? this.last.get(key)! : UNAVAILABLE
    }
    return out
  }

  private refresh(key: string, loader: Loader, input: SourceInput): void {
    if (this.loading.has(key)) return
    let result: Json | Promise<Json>
    try {
      result = loader(input)
    } catch (error) {
      console.warn('context source failed', { key, error: String(error) })
      return
    }
    if (!(result instanceof Promise)) return void this.last.set(key, result)
    this.loading.add(key)
    result.then(
      (value) => this.last.set(key, value),
      (error: unknown) => console.warn('context source failed', { key, error: String(error) }),
    ).finally(() => this.loading.delete(key))
  }
}

/** The sources every session has. Registering another is one line. */
export function defaultSources(): ContextSources {
  return new ContextSources()
    .register('env.date', ({ now }) => new Date(now).toISOString().slice(0, 10))
    .register('env.model', ({ provider, model }) => `${provider}/${model}`)
}

/** Available values that differ from `known`: what a mid-conversation update must say. */
export function changedSources(known: Record<string, SourceValue>, fresh: Record<string, SourceValue>): Record<string, Json> {
  const changes: Record<string, Json> = {}
  for (const [key, value] of Object.entries(fresh)) {
    if (isUnavailable(value)) continue // keep serving the last known value
    const before = known[key]
    // Nothing known and nothing to say is no change.
    if (value === null && (before === undefined || isUnavailable(before))) continue
    if (JSON.stringify(before) !== JSON.stringify(value)) changes[key] = value
  }
  return changes
}

/**
 * Sources as the text the model reads. A null value has nothing to say, and an unavailable one
 * nothing yet: both are left out of the text (the snapshot still records them).
 */
export function renderSources(values: Record<string, SourceValue>): string {
  return Object.entries(values)
    .filter(([, value]) => value !== null && !isUnavailable(value))
    .map(([key, value]) => `- ${key}: ${typeof value === 'string' ? value : JSON.stringify(value)}`)
    .join('\n')
}

function isUnavailable(value: SourceValue): value is typeof UNAVAILABLE {
  return typeof value === 'object' && value !== null && !Array.isArray(value) && (value as { unavailable?: unknown }).unavailable === true
}
