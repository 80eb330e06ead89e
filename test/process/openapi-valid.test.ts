/**
 * The served OpenAPI document is valid OpenAPI 3.1, checked by a real validator
 * (`@apidevtools/swagger-parser`: the official 3.1 JSON Schema, then every `$ref`
 * resolved) against what a real `wrangler dev` answers at `/v1/openapi.json`.
 * A schema reference that points at nothing makes the whole document unusable to
 * every generator and viewer, so it fails here.
 */
import SwaggerParser from '@apidevtools/swagger-parser'
import { afterAll, describe, expect, it } from 'vitest'
import { startWrangler, type Wrangler } from '../support/wrangler.ts'

describe('the OpenAPI document (real wrangler dev)', () => {
  let dev: Wrangler | undefined
  afterAll(async () => dev?.stop())

  it('validates as OpenAPI 3.1 with every reference resolved', async () => {
    dev = await startWrangler()
    const served = (await (await fetch(`${dev.url}/v1/openapi.json`)).json()) as { openapi: string; paths: Record<string, unknown> }
    expect(served.openapi).toBe('3.1.0')
    // validate() mutates what it is given (it dereferences in place): hand it a copy.
    const validated = (await SwaggerParser.validate(structuredClone(served) as never)) as unknown as { paths: Record<string, unknown> }
    expect(Object.keys(validated.paths)).toEqual(Object.keys(served.paths))
  })
})
