import type { DirectoryObject } from '../objects/directory/directory-object.ts'
import type { LedgerObject } from '../objects/ledger-object/ledger-object.ts'
import type { MeterObject } from '../objects/meter/meter-object.ts'
import type { OrchestrationObject } from '../objects/orchestration/orchestration-object.ts'
import type { SessionObject } from '../objects/session/session-object.ts'
import type { Principal } from './gate/principal.ts'

/** The worker's bindings, as declared in `wrangler.toml` (secrets in `.dev.vars` locally). */
export interface Env {
  LEDGER: DurableObjectNamespace<LedgerObject>
  SESSIONS: DurableObjectNamespace<SessionObject>
  METERS: DurableObjectNamespace<MeterObject>
  DIRECTORY: DurableObjectNamespace<DirectoryObject>
  ORCHESTRATIONS: DurableObjectNamespace<OrchestrationObject>
  NEURON_ENV?: string
  AUTH_ISSUER?: string
  AUTH_AUDIENCE?: string
  AUTH_JWKS?: string
  TICKET_SECRET?: string
  DEV_AUTH_SECRET?: string
}

/** What the gate's stages put on the request context. */
export interface GateVariables {
  principal: Principal
  ticket: { jti: string; exp: number }
  errorCode: string
}

/** Hono's environment type for this worker. */
export type AppEnv = { Bindings: Env; Variables: GateVariables }
