import type { LedgerObject } from '../objects/ledger-object/ledger-object.ts'

/** The worker's bindings, as declared in `wrangler.toml`. */
export interface Env {
  LEDGER: DurableObjectNamespace<LedgerObject>
}

/** Hono's environment type for this worker. */
export type AppEnv = { Bindings: Env }
