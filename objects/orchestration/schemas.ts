/**
 * What an orchestration accepts: the bodies of its routes, and the inputs an
 * agent may send over the bridge. The routes' declarations generate the
 * OpenAPI document from the same schemas.
 */
import { z } from 'zod'
import { CLEARANCE_TIMEOUT_MS } from '../core/limits.ts'
import { Identifier } from '../core/validate.ts'
import { BudgetSchema, PlanSchema, WorkspaceMode } from './plan.ts'

/** The body of `POST /v1/orchestrations`. */
export const CreateOrchestrationSchema = z.strictObject({
  id: Identifier.max(64).optional(),
  goal: z.string().min(1).max(16 * 1024),
  /** Without a plan, a planning turn produces one through the `plan` tool. */
  plan: PlanSchema.optional(),
  /**
   * Where the packages' file tools act: `own`, each agent session's own workspace; `shared`, the
   * orchestration's one workspace, written only within each package's declared `workspace:` writes
   * (docs/orchestration.md#a-shared-workspace).
   */
  workspace: WorkspaceMode.default('own'),
  model: z.string().regex(/^[^/\s]+\/[^\s]+$/, 'must be provider/model, e.g. local/echo-1').default('local/echo-1'),
  share: z.array(z.string().min(1).max(256)).max(16).default([]),
  budget: BudgetSchema.default({}),
  /** Attempts per package, each with a fresh agent, before it fails. */
  maxAttempts: z.number().int().min(1).max(5).default(2),
  /** An assigned package that has not reported after this long is failed (and retried). */
  timeoutMs: z.number().int().min(1_000).max(3_600_000).default(300_000),
  /** A package waiting for a human's clearance longer than this fails `CLEARANCE_EXPIRED`. */
  clearanceTimeoutMs: z.number().int().min(1_000).max(CLEARANCE_TIMEOUT_MS).default(CLEARANCE_TIMEOUT_MS),
})

export const CancelSchema = z.strictObject({
  package: Identifier.max(64).optional(),
  reason: z.string().min(1).max(1024).default('cancelled'),
})

export const ClearanceSchema = z.strictObject({
  decision: z.enum(['grant', 'deny']),
  reason: z.string().max(1024).optional(),
})

/** The claim a human needs to decide a package's clearance. */
export const CLEARANCE_CLAIM = 'role:clearance'

export const DeclareInput = z.object({ reads: z.array(z.string().min(1).max(512)).max(256).default([]), writes: z.array(z.string().min(1).max(512)).max(256).default([]) })
export const ReportInput = z.object({ result: z.json(), artifacts: z.array(z.string().max(512)).max(64).default([]) })
export const BurnInput = z.object({ step: z.string(), tokens: z.number().nonnegative(), cost: z.number().nonnegative() })
export const FailedInput = z.object({ reason: z.string().max(2048) })
