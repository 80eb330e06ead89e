import { NeuronError } from '../objects/errors.ts'

/**
 * Reads a request body as JSON, or throws `INVALID_JSON` (400) saying why.
 *
 * @example
 * const body = await readJson(c.req.raw)
 */
export async function readJson(request: Request): Promise<unknown> {
  const text = await request.text()
  try {
    return JSON.parse(text)
  } catch (error) {
    throw new NeuronError('INVALID_JSON', `request body is not valid JSON: ${(error as Error).message}`, {
      status: 400,
      cause: error,
    })
  }
}
