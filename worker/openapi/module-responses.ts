/** The JSON Schemas of the `/v1/modules` success responses (uploaded tool modules; see responses.ts for the rest). */

type Schema = Record<string, unknown>

const str = { type: 'string' }
const int = { type: 'integer' }
const bool = { type: 'boolean' }
const obj = (properties: Schema, required = Object.keys(properties)): Schema => ({ type: 'object', required, properties })

const Tool = obj({ name: str, description: str, input: { type: 'object' }, output: { type: 'object' }, timeoutMs: int }, ['name', 'description', 'input', 'output'])
const Version = {
  module: str,
  version: { ...int, description: '1 for the first upload of this id, one more for each later one' },
  hash: { ...str, description: "the upload's content id (sha256 of its canonical JSON)" },
  size: int,
  tools: { type: 'array', items: Tool },
  origins: { type: 'array', items: str, description: 'the origins its code may fetch through the outbound gate' },
  uploadedAt: str,
}

export const StoredModule = obj({ ...Version, duplicate: bool })
export const ModuleVersion = obj(Version)
export const Modules = obj({ items: { type: 'array', items: ModuleVersion } })
export const ModuleWithCode = obj({ ...Version, code: { ...str, description: 'the ES module as uploaded' } })
export const Retired = obj({ module: str, retired: bool })
