/**
 * The payload schema of every session event (spec §1.2, plane 3): one zod schema per type of
 * `EVENT`, registered as `TYPE@1`. The table is typed by the vocabulary, so a type added to
 * `EventPayloads` without a schema here, or a schema whose output is not its type's payload,
 * fails to compile; a test drives real turns and holds every event written to its schema.
 *
 * Kept apart from events.ts so that the client and the shell, which import the names and
 * payload types, never bundle zod for it. Worker-side only.
 */
import { z } from 'zod'
import type { SchemaRegistry } from '../../ledger/registry.ts'
import { EVENT, type EventPayloads, type EventType } from './events.ts'

/** The version every session payload schema is registered under (`session.next.text@1`). */
export const EVENT_SCHEMA_VERSION = 1

const Failure = z.strictObject({ code: z.string(), message: z.string() })
const Usage = z.strictObject({
  inputTokens: z.number(),
  outputTokens: z.number(),
  cachedInputTokens: z.number(),
  reasoningTokens: z.number(),
  cacheWriteTokens: z.number().optional(),
})
const Finish = z.enum(['stop', 'length', 'tool-calls', 'content-filter', 'other'])
/** An artifact as events name it: `sha256:` and 64 hex digits. */
const Artifact = z.string().regex(/^sha256:[0-9a-f]{64}$/)

/** Each event type's payload schema. */
export const EVENT_SCHEMAS: { [K in EventType]: z.ZodType<EventPayloads[K]> } = {
  [EVENT.created]: z.strictObject({
    model: z.string(),
    provider: z.string(),
    title: z.string().nullable(),
    system: z.string().nullable(),
    owner: z.string(),
    share: z.array(z.string()),
    agent: z.string().optional(),
  }),
  [EVENT.admitted]: z.strictObject({ messageId: z.string(), delivery: z.enum(['steer', 'queue']), text: z.string(), digest: z.string() }),
  [EVENT.prompted]: z.strictObject({
    messageIds: z.array(z.string()),
    by: z.strictObject({ principal: z.string().nullable(), claims: z.array(z.string()) }).optional(),
  }),
  [EVENT.drainStarted]: z.strictObject({ run: z.string() }),
  [EVENT.drainEnded]: z.strictObject({ run: z.string(), reason: z.enum(['idle', 'recovered']) }),
  [EVENT.stepStarted]: z.strictObject({
    step: z.string(),
    turn: z.number().int().nonnegative(),
    provider: z.string(),
    model: z.string(),
    tools: Artifact.optional(),
    chars: z.number().int().nonnegative().optional(),
  }),
  [EVENT.stepEnded]: z.strictObject({ step: z.string(), finish: Finish, usage: Usage.nullable(), cost: z.number().nullable() }),
  [EVENT.stepFailed]: z.strictObject({ step: z.string(), error: Failure }),
  [EVENT.reasoning]: z.strictObject({ step: z.string(), text: z.string(), signature: z.string().optional(), redacted: z.string().optional() }),
  [EVENT.text]: z.strictObject({ step: z.string(), text: z.string() }),
  [EVENT.toolCalled]: z.strictObject({ step: z.string(), toolCallId: z.string(), name: z.string(), input: z.json() }),
  [EVENT.toolSucceeded]: z.strictObject({
    step: z.string(),
    toolCallId: z.string(),
    content: z.string(),
    truncated: z.boolean(),
    artifact: Artifact.optional(),
  }),
  [EVENT.toolFailed]: z.strictObject({ step: z.string(), toolCallId: z.string(), error: Failure }),
  [EVENT.toolCancelled]: z.strictObject({ step: z.string(), toolCallId: z.string(), reason: z.string() }),
  [EVENT.retried]: z.strictObject({ step: z.string(), attempt: z.number().int().positive(), delayMs: z.number().nonnegative(), status: z.number().int(), message: z.string() }),
  [EVENT.interruptRequested]: z.strictObject({ id: z.string(), step: z.string().nullable(), by: z.string(), reason: z.string() }),
  [EVENT.interrupted]: z.strictObject({ step: z.string().nullable(), reason: z.string(), request: z.string().optional() }),
  [EVENT.compactionStarted]: z.strictObject({ id: z.string(), reason: z.enum(['budget', 'overflow']), estimate: z.number(), budget: z.number() }),
  [EVENT.compactionEnded]: z.union([
    z.strictObject({
      id: z.string(),
      outcome: z.literal('completed'),
      baseline: Artifact,
      summarised: z.number().int().nonnegative(),
      kept: z.number().int().nonnegative(),
      usage: Usage.nullable(),
    }),
    z.strictObject({ id: z.string(), outcome: z.enum(['failed', 'interrupted']), error: Failure }),
  ]),
  [EVENT.epochStarted]: z.strictObject({ baseline: Artifact, after: z.number().int().nonnegative(), reason: z.enum(['start', 'compaction']) }),
  [EVENT.contextChanged]: z.strictObject({ values: z.record(z.string(), z.json()) }),
  [EVENT.halted]: z.strictObject({
    reason: z.enum(['turn-limit', 'step-failed', 'context-overflow']),
    limit: z.number().int().nullable(),
    error: Failure.optional(),
  }),
  [EVENT.truncated]: z.strictObject({
    at: z.number().int().nonnegative(),
    keep: z.number().int().nonnegative(),
    drop: z.number().int().nonnegative(),
    epoch: z.number().int().nonnegative().optional(),
    head: z.string().optional(),
  }),
  [EVENT.permissionRequested]: z.strictObject({
    step: z.string(),
    toolCallId: z.string(),
    tool: z.string(),
    source: z.string(),
    subjects: z.array(z.string()),
    input: z.json(),
    reason: z.string(),
    expiresAt: z.number().int().nonnegative(),
  }),
  [EVENT.permissionAnswered]: z.strictObject({
    step: z.string(),
    toolCallId: z.string(),
    reply: z.enum(['once', 'always', 'reject']),
    by: z.string(),
    reason: z.string().optional(),
    rules: z.array(z.json()).optional(),
  }),
  [EVENT.permissionExpired]: z.strictObject({ step: z.string(), toolCallId: z.string() }),
}

/**
 * The ref a type's payload schema is registered under.
 *
 * @example
 * eventSchemaRef(EVENT.text) // 'session.next.text@1'
 */
export function eventSchemaRef(type: EventType): string {
  return `${type}@${EVENT_SCHEMA_VERSION}`
}

/**
 * Registers every session payload schema in `registry` (plane 3); idempotent.
 *
 * @example
 * registerEventSchemas(ledger.schemas)
 * ledger.schemas.validate(eventSchemaRef(EVENT.text), { step: 's1', text: 'hi' })
 */
export function registerEventSchemas(registry: SchemaRegistry): void {
  for (const type of Object.values(EVENT)) registry.register(eventSchemaRef(type), EVENT_SCHEMAS[type], 3)
}
