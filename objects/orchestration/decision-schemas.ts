/**
 * The payload schema of every orchestration decision (spec §1.2, plane 3): one zod schema per
 * type of `ORCH`, registered as `TYPE@1`. Typed by `OrchPayloads`, so a decision added without a
 * schema, or a schema whose output is not its payload, fails to compile; a test runs real
 * orchestrations and holds every decision written to its schema.
 */
import { z } from 'zod'
import type { SchemaRegistry } from '../ledger/registry.ts'
import { ORCH, type OrchEvent, type OrchPayloads } from './events.ts'
import { BudgetSchema, PackageSchema, WorkspaceMode } from './plan.ts'

/** The version every decision schema is registered under (`orchestration.finished@1`). */
export const DECISION_SCHEMA_VERSION = 1

const Package = z.string()
const Token = z.string()

/** Each decision type's payload schema. */
export const DECISION_SCHEMAS: { [K in OrchEvent]: z.ZodType<OrchPayloads[K]> } = {
  [ORCH.created]: z.strictObject({
    goal: z.string(),
    owner: z.string(),
    share: z.array(z.string()),
    model: z.string(),
    plan: z.array(PackageSchema).nullable(),
    budget: BudgetSchema,
    maxAttempts: z.number().int().positive(),
    timeoutMs: z.number().int().positive(),
    clearanceTimeoutMs: z.number().int().positive().optional(),
    workspace: WorkspaceMode.optional(),
  }),
  [ORCH.plannerAssigned]: z.strictObject({ token: Token }),
  [ORCH.planned]: z.strictObject({ plan: z.array(PackageSchema), source: z.string() }),
  [ORCH.inlined]: z.strictObject({ package: Package, agent: Token, reason: z.string(), expectedMs: z.number(), breakEvenMs: z.number() }),
  [ORCH.assigned]: z.strictObject({ package: Package, token: Token, attempt: z.number().int().positive() }),
  [ORCH.declared]: z.strictObject({
    package: Package,
    token: Token,
    declaration: z.strictObject({ reads: z.array(z.string()), writes: z.array(z.string()) }),
    source: z.string(),
  }),
  [ORCH.refused]: z.strictObject({
    package: Package,
    conflicts: z.array(z.strictObject({ with: z.string(), resource: z.string(), kind: z.enum(['write/write', 'write/read', 'read/write']) })),
    edges: z.array(z.tuple([z.string(), z.string()])),
  }),
  [ORCH.awaitingHuman]: z.strictObject({ package: Package }),
  [ORCH.cleared]: z.strictObject({ package: Package, by: z.enum(['dag', 'human']), principal: z.string().optional() }),
  [ORCH.executing]: z.strictObject({ package: Package, token: Token }),
  [ORCH.burned]: z.strictObject({ package: Package, token: Token, step: z.string(), tokens: z.number().nonnegative(), cost: z.number().nonnegative(), source: z.string() }),
  [ORCH.reported]: z.strictObject({ package: Package, token: Token, result: z.json(), artifacts: z.array(z.string()), source: z.string() }),
  [ORCH.failed]: z.strictObject({
    package: Package,
    token: Token.nullable(),
    reason: z.string(),
    retry: z.boolean(),
    source: z.string().optional(),
    code: z.string().optional(),
  }),
  [ORCH.blocked]: z.strictObject({ package: Package, reason: z.string() }),
  [ORCH.cancelled]: z.strictObject({ package: Package, reason: z.string(), source: z.string() }),
  [ORCH.budgetExceeded]: z.strictObject({
    scope: z.enum(['orchestration', 'package']),
    package: Package.optional(),
    limit: z.string(),
    used: z.number(),
    cap: z.number(),
  }),
  [ORCH.finished]: z.strictObject({ status: z.enum(['completed', 'failed', 'cancelled']), reason: z.string() }),
}

/**
 * The ref a decision type's payload schema is registered under.
 *
 * @example
 * decisionSchemaRef(ORCH.finished) // 'orchestration.finished@1'
 */
export function decisionSchemaRef(type: OrchEvent): string {
  return `${type}@${DECISION_SCHEMA_VERSION}`
}

/**
 * Registers every decision's payload schema in `registry` (plane 3); idempotent.
 *
 * @example
 * registerDecisionSchemas(ledger.schemas)
 */
export function registerDecisionSchemas(registry: SchemaRegistry): void {
  for (const type of Object.values(ORCH)) registry.register(decisionSchemaRef(type), DECISION_SCHEMAS[type], 3)
}
