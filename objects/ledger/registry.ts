/**
 * Schema registry (planes 1–3). Schemas are immutable JSON Schemas (draft
 * 2020-12) stored by ref; versions coexist as distinct refs (`note@1`,
 * `note@2`). Re-registering the same schema under a ref is a no-op; a
 * different schema under a taken ref is `SCHEMA_CONFLICT`. A schema is checked
 * before it is stored (schema-check.ts): it compiles, its `$ref`s resolve and
 * its patterns cannot stall the isolate, so every append can use it.
 */
import { eq } from 'drizzle-orm'
import type { DrizzleSqliteDODatabase } from 'drizzle-orm/durable-sqlite'
import { z } from 'zod'
import { NeuronError, SchemaViolationError } from '../core/errors.ts'
import { sha256Hex } from './hash.ts'
import { canonicalJson } from './json.ts'
import { checkSchema } from './schema-check.ts'
import { SchemaValidator } from './validator.ts'
import { schemaRegistry } from './schema.ts'

/** Which plane a schema describes: 1 header values, 2 body contracts, 3 payloads. */
export type Plane = 1 | 2 | 3

export interface RegisteredSchema {
  ref: string
  plane: Plane
  hash: string
  jsonSchema: Record<string, unknown>
}

export class SchemaRegistry {
  private readonly validators = new Map<string, SchemaValidator>()

  constructor(private readonly db: DrizzleSqliteDODatabase<Record<string, unknown>>) {}

  /**
   * Registers a zod schema or a JSON Schema under `ref`.
   *
   * @example
   * registry.register('note.added@1', z.object({ text: z.string() }))
   */
  register(ref: string, schema: z.ZodType | Record<string, unknown>, plane: Plane = 3): RegisteredSchema {
    if (!/^[A-Za-z0-9_.:\-]+@[0-9]+$/.test(ref)) {
      throw new NeuronError('INVALID_SCHEMA_REF', `schema ref ${JSON.stringify(ref)} must look like name@version`, {
        details: { ref },
      })
    }
    const jsonSchema =
      schema instanceof z.ZodType ? (z.toJSONSchema(schema, { target: 'draft-2020-12' }) as Record<string, unknown>) : schema
    const text = canonicalJson(jsonSchema)
    checkSchema(jsonSchema, text)
    const hash = sha256Hex(text)
    const existing = this.find(ref)
    if (existing) {
      if (existing.hash !== hash) {
        throw new NeuronError('SCHEMA_CONFLICT', `schema ${ref} is already registered with different content`, {
          status: 409,
          details: { ref, registered: existing.hash, offered: hash },
        })
      }
      return existing
    }
    this.db.insert(schemaRegistry).values({ ref, plane, jsonSchema: text, hash, time: Date.now() }).run()
    return { ref, plane, hash, jsonSchema }
  }

  /** The registered schema, or `undefined`. */
  find(ref: string): RegisteredSchema | undefined {
    const [row] = this.db.select().from(schemaRegistry).where(eq(schemaRegistry.ref, ref)).all()
    if (!row) return undefined
    return { ref: row.ref, plane: row.plane as Plane, hash: row.hash, jsonSchema: JSON.parse(row.jsonSchema) }
  }

  /** Throws `UNKNOWN_SCHEMA` or `SCHEMA_VIOLATION` unless `value` satisfies `ref`. */
  validate(ref: string, value: unknown): void {
    const result = this.validator(ref).validate(value)
    if (result.valid) return
    throw new SchemaViolationError(
      ref,
      result.errors.slice(0, 20).map((error) => ({ path: error.instanceLocation, message: error.error })),
    )
  }

  private validator(ref: string): SchemaValidator {
    const cached = this.validators.get(ref)
    if (cached) return cached
    const found = this.find(ref)
    if (!found) throw new NeuronError('UNKNOWN_SCHEMA', `no schema is registered as ${ref}`, { details: { ref } })
    // A schema stored before registration checked it is held to the same rule before first use.
    checkSchema(found.jsonSchema, canonicalJson(found.jsonSchema))
    const validator = new SchemaValidator(found.jsonSchema)
    this.validators.set(ref, validator)
    return validator
  }
}
