/** The worker's request context: the bindings (objects/core/env.ts) and what the gate's stages add. */
import type { Env } from '../objects/core/env.ts'
import type { Extensions } from '../objects/extend/extensions.ts'
import type { Principal } from './gate/principal.ts'

/** What the gate's stages put on the request context. */
export interface GateVariables {
  principal: Principal
  ticket: { jti: string; exp: number }
  /** When the credential this request was authenticated with expires (epoch seconds): a stream lives no longer. */
  authExp: number
  errorCode: string
  /** The deployment's own tools and catalog rows (createNeuron): routes that check a name against them read them here. */
  extensions: Extensions
}

/** What the composition (worker/neuron.ts) puts on every request's context: the deployment's checked extensions. */
export interface DeploymentVariables {
  extensions: Extensions
}

/** Hono's environment type for this worker. */
export type AppEnv = { Bindings: Env; Variables: GateVariables & DeploymentVariables }
