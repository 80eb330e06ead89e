import { parseJson } from '../objects/core/parse-json.ts'

/**
 * Reads a request body as JSON, or throws `INVALID_JSON` / `JSON_TOO_DEEP` (400) saying why.
 * Every JSON body route reads its body here, so the nesting limit holds for all of them.
 *
 * @example
 * const body = await readJson(c.req.raw)
 */
export async function readJson(request: Request): Promise<unknown> {
  return parseJson(await request.text())
}
