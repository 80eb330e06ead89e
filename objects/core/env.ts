/**
 * The deployment's bindings, as declared in `wrangler.toml` (secrets in `.dev.vars`
 * locally). It lives beside the objects because both the worker and every Durable
 * Object class receive it; the worker's own request types stay in `worker/env.ts`.
 */
import type { AppBackendObject } from '../apps/backend-object.ts'
import type { AppShelfObject } from '../apps/shelf-object.ts'
import type { ConfigObject } from '../config/config-object.ts'
import type { DirectoryObject } from '../directory/directory-object.ts'
import type { GraphObject } from '../graph/graph-object.ts'
import type { LedgerObject } from '../ledger-object/ledger-object.ts'
import type { MeterObject } from '../meter/meter-object.ts'
import type { OrchestrationObject } from '../orchestration/orchestration-object.ts'
import type { SessionObject } from '../session/wiring/session-object.ts'

export interface Env {
  LEDGER: DurableObjectNamespace<LedgerObject>
  SESSIONS: DurableObjectNamespace<SessionObject>
  METERS: DurableObjectNamespace<MeterObject>
  DIRECTORY: DurableObjectNamespace<DirectoryObject>
  CONFIGS: DurableObjectNamespace<ConfigObject>
  GRAPHS: DurableObjectNamespace<GraphObject>
  ORCHESTRATIONS: DurableObjectNamespace<OrchestrationObject>
  /** One per person: uploaded app packages and the index of installs (objects/apps/). */
  APP_SHELVES: DurableObjectNamespace<AppShelfObject>
  /** One per (person, app) installation: its state, grants and connections (objects/apps/). */
  APP_BACKENDS: DurableObjectNamespace<AppBackendObject>
  /** Loads app backends into their own isolates (Dynamic Workers). */
  LOADER: WorkerLoader
  /** Development only: the local sandbox process app backends run in (`npm start` sets it; objects/apps/run.ts). */
  BACKEND_SANDBOX?: string
  NEURON_ENV?: string
  /** `log` / `off`: the per-request audit lines (worker/gate/audit.ts); default: on when deployed, off in development. */
  NEURON_AUDIT?: string
  AUTH_ISSUER?: string
  AUTH_AUDIENCE?: string
  AUTH_JWKS?: string
  TICKET_SECRET?: string
  DEV_AUTH_SECRET?: string
  /** Seals principals' stored provider keys (objects/config/credentials.ts); without it none can be stored. */
  CREDENTIALS_SECRET?: string
  /** The master secret app keys are derived from (objects/apps/vetkeys.ts); without it none can be derived. */
  VETKEYS_SECRET?: string
  /** How long a browser host has to answer a host tool call, in ms (default 120 s; see docs/host-tools.md). */
  HOST_CALL_TIMEOUT_MS?: string
}
