/** The JSON Schemas of the `/v1/apps` success responses (see responses.ts for the rest). */

type Schema = Record<string, unknown>

const str = { type: 'string' }
const int = { type: 'integer' }
const bool = { type: 'boolean' }
const obj = (properties: Schema, required = Object.keys(properties)): Schema => ({ type: 'object', required, properties })
const list = (items: Schema): Schema => obj({ items: { type: 'array', items } })

const Summary = { app: str, version: str, hash: { ...str, description: "the package's content id (sha256 of its canonical JSON)" } }

export const StoredPackage = obj({ ...Summary, size: int, duplicate: bool })
export const Package: Schema = { type: 'object', description: 'the package as uploaded: manifest, files, backend, interface' }
export const Installed = obj(Summary)
export const Installs = list(obj({ ...Summary, installedAt: str, updatedAt: str, files: { type: ['string', 'null'], description: 'where the shell\'s frames read this package\'s files (/app-frames/…/); null when the deployment has no TICKET_SECRET' } }))
export const Installation = obj({ ...Summary, methods: { type: 'object', description: 'method name → { kind: query | update, input, output } (JSON Schema 2020-12)' } })
export const Upgraded = obj({ ...Summary, from: { type: ['string', 'null'] } })
export const Uninstalled = obj({ ...Summary, uninstalled: bool })
export const CallOutput = obj({ output: { description: "the method's output, valid against its declared output schema" } })
export const Grant = obj({ origin: str, grantedAt: str })
export const Grants = list(Grant)
export const Revoked = obj({ origin: str, revoked: bool })
export const Connection = obj({ name: str, setAt: str })
export const Connections = list(Connection)
export const ConnectionDeleted = obj({ name: str, deleted: bool })
export const RevealedConnection = obj({ name: str, secret: str })
const Jwk = obj({ kty: str, crv: str, x: str, y: str })
export const EncryptedKey = obj({ ephemeralPublicKey: Jwk, iv: str, ciphertext: str, boundTo: str })
