import { env } from 'cloudflare:workers'
import { runInDurableObject } from 'cloudflare:test'
import { Ledger } from '../../objects/ledger/ledger.ts'

let counter = 0

/** A unique ledger name per call, so tests in one file never share an object. */
export function uniqueName(prefix = 'test'): string {
  return `${prefix}-${Date.now()}-${counter++}`
}

/**
 * Runs `fn` inside a real `LedgerObject` (migrated SQLite storage) with a
 * `Ledger` over that object's storage.
 */
export function withLedger<T>(name: string, fn: (ledger: Ledger, state: DurableObjectState) => T | Promise<T>): Promise<T> {
  return runInDurableObject(env.LEDGER.getByName(name), (_object, state) => fn(new Ledger(state.storage), state))
}
