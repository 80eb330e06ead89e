/**
 * `/v1/apps`: app packages and the caller's installs of them (docs/backends.md).
 * Packages are checked whole before anything is stored (objects/apps/package.ts),
 * their backend loaded once, under the same bounds as a call (objects/apps/run.ts),
 * to prove it loads and has every declared method. Every install route works on the caller's own
 * installation: the person is the authenticated principal, never a parameter,
 * so no one reaches another person's installation, state, grants or keys.
 */
import type { Context } from 'hono'
import { z } from 'zod'
import type { AppBackendObject } from '../../objects/apps/backend-object.ts'
import { ConnectionBody, ConnectionName, REVEAL_CLAIM } from '../../objects/apps/connections.ts'
import { frameBase } from '../../objects/apps/frame-files.ts'
import { originOf } from '../../objects/apps/grants.ts'
import { type InstalledVersion, installationName, shelfKey } from '../../objects/apps/installation.ts'
import { AppId, AppPackage, checkPackage, PackageHash } from '../../objects/apps/package.ts'
import { backendHost, checkBackend } from '../../objects/apps/run.ts'
import { deriveEncryptedKey, VetkeyRequest } from '../../objects/apps/vetkeys.ts'
import { NeuronError } from '../../objects/core/errors.ts'
import { MAX_CALL_BYTES, MAX_CREDENTIAL_BYTES, MAX_PACKAGE_BYTES } from '../../objects/core/limits.ts'
import { settled } from '../../objects/core/rpc.ts'
import { parseOrThrow } from '../../objects/core/validate.ts'
import { callerOf } from '../caller.ts'
import { exists, register } from '../../objects/directory/keys.ts'
import type { AppEnv } from '../env.ts'
import * as R from '../openapi/app-responses.ts'
import { BODY_ERRORS, REQUEST_ERRORS } from '../openapi/body-errors.ts'
import { readJson } from '../read-json.ts'
import { mount, route } from '../route.ts'

/** The body of `POST /v1/apps/installs` and `PUT /v1/apps/installs/{app}`: a stored package, by hash. */
export const InstallBody = z.strictObject({ package: PackageHash })
/**
 * The body of `POST /v1/apps/installs/{app}/call`. `kind`, when given, is the kind of method the
 * caller means to run (the shell's `canister.query_self` says `query`): a method of the other kind
 * is refused before anything runs, against the same installed interface the call would use.
 */
export const CallBody = z.strictObject({ method: z.string().min(1).max(64), input: z.unknown(), kind: z.enum(['query', 'update']).optional() })
/** The body of `POST /v1/apps/installs/{app}/backend-calls`, and the query of its DELETE. */
export const GrantBody = z.strictObject({ origin: z.string().min(1).max(2048) })
/** Small bodies: an install, a grant. */
export const SMALL_BODY = 16 * 1024
/** Room for the envelope of a package body (`MAX_PACKAGE_BYTES` is checked on its canonical form). */
export const PACKAGE_BODY = MAX_PACKAGE_BYTES + 64 * 1024

type Ctx = Context<AppEnv>

/** Every route under `/v1/apps/installs/{app}` resolves the caller's installation first. */
const INSTALL_ERRORS = ['INVALID_REQUEST', 'APP_NOT_INSTALLED']

/**
 * The `/v1/apps` routes, each declared once with its handler; collected into the document by
 * worker/openapi/routes.ts.
 *
 * @example
 * APP_ROUTES.map((r) => `${r.method} ${r.path}`)
 */
export const APP_ROUTES = [
  route({
    method: 'post',
    path: '/v1/apps/packages',
    operationId: 'uploadAppPackage',
    summary: 'Upload an app package (manifest, files, backend module, interface); checked whole, its backend loaded once; stored content-addressed',
    auth: 'bearer',
    body: AppPackage,
    maxBodyBytes: PACKAGE_BODY,
    ok: { 201: 'stored', 200: 'these exact bytes were stored before' },
    response: R.StoredPackage,
    errors: [...BODY_ERRORS, 'INVALID_PACKAGE', 'PACKAGE_TOO_LARGE', 'MISSING_ENTRY', 'INVALID_SCHEMA', 'BACKEND_LOAD_FAILED', 'BACKEND_LIMIT', 'BACKEND_UNAVAILABLE'],
    handler: async (c) => {
      const person = callerOf(c).id
      const { hash, text, pkg } = checkPackage(await readJson(c.req.raw))
      if (pkg.backend) await checkBackend(backendHost(c.env), hash, pkg.backend.module, Object.keys(pkg.interface.methods))
      await register(c.env, shelfKey(person))
      const stored = await settled(c.env.APP_SHELVES.getByName(person)).putPackage(person, { hash, text, app: pkg.manifest.app, version: pkg.manifest.version })
      return c.json(stored, stored.duplicate ? 200 : 201)
    },
  }),
  route({
    method: 'get',
    path: '/v1/apps/packages/{hash}',
    operationId: 'getAppPackage',
    summary: 'A package the caller uploaded, as stored',
    auth: 'bearer',
    ok: { 200: 'the package' },
    response: R.Package,
    errors: ['INVALID_REQUEST', 'PACKAGE_NOT_FOUND'],
    handler: async (c) => c.json((await packageOf(c, c.req.param('hash'))).pkg),
  }),
  route({
    method: 'post',
    path: '/v1/apps/installs',
    operationId: 'installApp',
    summary: 'Install an uploaded package for the caller (one installation per app, with its own state)',
    auth: 'bearer',
    body: InstallBody,
    maxBodyBytes: SMALL_BODY,
    ok: { 201: 'installed' },
    response: R.Installed,
    errors: [...REQUEST_ERRORS, 'PACKAGE_NOT_FOUND', 'APP_ALREADY_INSTALLED'],
    handler: async (c) => {
      const person = callerOf(c).id
      const version = versionOf(person, await packageOf(c, parseOrThrow(InstallBody, await readJson(c.req.raw), 'INVALID_REQUEST').package))
      await register(c.env, installKey(person, version.app))
      await backendOf(c, person, version.app).install(version, { upgrade: false })
      await settled(c.env.APP_SHELVES.getByName(person)).record(person, 'app.installed', summary(version))
      return c.json(summary(version), 201)
    },
  }),
  route({
    method: 'get',
    path: '/v1/apps/installs',
    operationId: 'listInstalls',
    summary: "The caller's installed apps and their versions",
    auth: 'bearer',
    ok: { 200: 'the list' },
    response: R.Installs,
    errors: [],
    handler: async (c) => {
      const person = callerOf(c).id
      const items = (await exists(c.env, shelfKey(person))) ? await settled(c.env.APP_SHELVES.getByName(person)).list() : []
      // Each install carries the address its frontend is served at to the shell's frames (app-frames.ts).
      const secret = c.env.TICKET_SECRET
      return c.json({ items: await Promise.all(items.map(async (item) => ({ ...item, files: secret ? await frameBase(secret, person, item.hash) : null }))) })
    },
  }),
  route({
    method: 'get',
    path: '/v1/apps/installs/{app}',
    operationId: 'getInstall',
    summary: 'The installed version and its interface (the schemas every call is checked with)',
    auth: 'bearer',
    ok: { 200: 'the installation' },
    response: R.Installation,
    errors: INSTALL_ERRORS,
    handler: async (c) => {
      const installed = await (await installation(c)).installed()
      if (!installed) throw notInstalled(c.req.param('app'))
      return c.json({ ...summary(installed), methods: installed.methods })
    },
  }),
  route({
    method: 'put',
    path: '/v1/apps/installs/{app}',
    operationId: 'upgradeApp',
    summary: 'Upgrade to another uploaded version of the same app; the state carries over',
    auth: 'bearer',
    body: InstallBody,
    maxBodyBytes: SMALL_BODY,
    ok: { 200: 'upgraded' },
    response: R.Upgraded,
    errors: [...REQUEST_ERRORS, 'APP_NOT_INSTALLED', 'PACKAGE_NOT_FOUND', 'APP_MISMATCH', 'SAME_VERSION'],
    handler: async (c) => {
      const person = callerOf(c).id
      const backend = await installation(c)
      const version = versionOf(person, await packageOf(c, parseOrThrow(InstallBody, await readJson(c.req.raw), 'INVALID_REQUEST').package))
      if (version.app !== c.req.param('app')) throw new NeuronError('APP_MISMATCH', `the package is ${version.app}, not ${c.req.param('app')}`, { status: 400 })
      const { from } = await backend.install(version, { upgrade: true })
      await settled(c.env.APP_SHELVES.getByName(person)).record(person, 'app.upgraded', summary(version))
      return c.json({ ...summary(version), from })
    },
  }),
  route({
    method: 'delete',
    path: '/v1/apps/installs/{app}',
    operationId: 'uninstallApp',
    summary: 'Uninstall: calls are refused; the history stays in the installation ledger',
    auth: 'bearer',
    ok: { 200: 'uninstalled' },
    response: R.Uninstalled,
    errors: INSTALL_ERRORS,
    handler: async (c) => {
      const person = callerOf(c).id
      const removed = await (await installation(c)).uninstall(person)
      await settled(c.env.APP_SHELVES.getByName(person)).record(person, 'app.uninstalled', summary(removed))
      return c.json({ ...summary(removed), uninstalled: true })
    },
  }),
  route({
    method: 'post',
    path: '/v1/apps/installs/{app}/call',
    operationId: 'callBackend',
    summary: 'Call a method of the installed backend: input and output checked against the installed interface; a query reads, an update appends',
    auth: 'bearer',
    body: CallBody,
    maxBodyBytes: MAX_CALL_BYTES,
    ok: { 200: 'the output' },
    response: R.CallOutput,
    errors: [...REQUEST_ERRORS, 'APP_NOT_INSTALLED', 'UNKNOWN_METHOD', 'METHOD_KIND_MISMATCH', 'INVALID_INPUT', 'INVALID_OUTPUT', 'BACKEND_FAILED', 'BACKEND_TIMEOUT', 'BACKEND_LIMIT', 'BACKEND_UNAVAILABLE'],
    handler: async (c) => {
      const { method, input, kind } = parseOrThrow(CallBody, await readJson(c.req.raw), 'INVALID_REQUEST')
      return c.json(await (await installation(c)).call(method, input, kind))
    },
  }),
  // What the backend may reach, and the secrets and keys it is handed.
  route({
    method: 'get',
    path: '/v1/apps/installs/{app}/backend-calls',
    operationId: 'listBackendCalls',
    summary: 'The origins the backend may reach (backend_calls.list)',
    auth: 'bearer',
    ok: { 200: 'the grants' },
    response: R.Grants,
    errors: INSTALL_ERRORS,
    handler: async (c) => c.json({ items: await (await installation(c)).listGrants() }),
  }),
  route({
    method: 'post',
    path: '/v1/apps/installs/{app}/backend-calls',
    operationId: 'grantBackendCall',
    summary: 'Grant the backend outbound access to an origin (backend_calls.request, after consent)',
    auth: 'bearer',
    body: GrantBody,
    maxBodyBytes: SMALL_BODY,
    ok: { 200: 'granted (or already granted)' },
    response: R.Grant,
    // URL_REFUSED: an origin the one outbound policy refuses (private, reserved) is never granted.
    errors: [...REQUEST_ERRORS, 'APP_NOT_INSTALLED', 'INVALID_ORIGIN', 'URL_REFUSED', 'TOO_MANY_GRANTS'],
    handler: async (c) => {
      const { origin } = parseOrThrow(GrantBody, await readJson(c.req.raw), 'INVALID_REQUEST')
      return c.json(await (await installation(c)).grant(callerOf(c).id, originOf(origin)))
    },
  }),
  route({
    method: 'delete',
    path: '/v1/apps/installs/{app}/backend-calls',
    operationId: 'revokeBackendCall',
    summary: 'Revoke an origin; the next request to it is refused',
    auth: 'bearer',
    query: GrantBody,
    ok: { 200: '{ origin, revoked }' },
    response: R.Revoked,
    errors: [...INSTALL_ERRORS, 'INVALID_QUERY', 'INVALID_ORIGIN'],
    handler: async (c) => {
      const { origin } = parseOrThrow(GrantBody, c.req.query(), 'INVALID_QUERY')
      return c.json(await (await installation(c)).revoke(callerOf(c).id, originOf(origin)))
    },
  }),
  route({
    method: 'get',
    path: '/v1/apps/installs/{app}/connections',
    operationId: 'listConnections',
    summary: "The installation's connections and when each was set (never the secret)",
    auth: 'bearer',
    ok: { 200: 'the list' },
    response: R.Connections,
    errors: INSTALL_ERRORS,
    handler: async (c) => c.json({ items: await (await installation(c)).connections() }),
  }),
  route({
    method: 'put',
    path: '/v1/apps/installs/{app}/connections/{name}',
    operationId: 'putConnection',
    summary: "Store a connection's secret, sealed with the deployment secret; write-only",
    auth: 'bearer',
    body: ConnectionBody,
    maxBodyBytes: MAX_CREDENTIAL_BYTES,
    ok: { 200: 'which connection and when (never the secret)' },
    response: R.Connection,
    errors: [...REQUEST_ERRORS, 'APP_NOT_INSTALLED', 'CREDENTIALS_NOT_CONFIGURED'],
    handler: async (c) => {
      const name = parseOrThrow(ConnectionName, c.req.param('name'), 'INVALID_REQUEST')
      const { secret } = parseOrThrow(ConnectionBody, await readJson(c.req.raw), 'INVALID_REQUEST')
      return c.json(await (await installation(c)).setConnection(callerOf(c).id, name, secret))
    },
  }),
  route({
    method: 'delete',
    path: '/v1/apps/installs/{app}/connections/{name}',
    operationId: 'deleteConnection',
    summary: 'Remove a connection (a new version of the sealed set without it)',
    auth: 'bearer',
    ok: { 200: '{ name, deleted }' },
    response: R.ConnectionDeleted,
    errors: INSTALL_ERRORS,
    handler: async (c) => {
      const name = parseOrThrow(ConnectionName, c.req.param('name'), 'INVALID_REQUEST')
      return c.json(await (await installation(c)).deleteConnection(callerOf(c).id, name))
    },
  }),
  route({
    method: 'post',
    path: '/v1/apps/installs/{app}/connections/{name}/reveal',
    operationId: 'revealConnection',
    summary: "Open a connection's secret: for the shell's kernel (claim scope:apps.connections.reveal), to hand to the app's live background",
    auth: 'bearer',
    ok: { 200: 'the secret (cache-control: no-store)' },
    response: R.RevealedConnection,
    errors: [...INSTALL_ERRORS, 'CLAIM_REQUIRED', 'CONNECTION_NOT_FOUND', 'CREDENTIALS_NOT_CONFIGURED'],
    handler: async (c) => {
      const caller = callerOf(c)
      if (!caller.claims.includes(REVEAL_CLAIM)) throw new NeuronError('CLAIM_REQUIRED', `opening a connection needs the claim ${REVEAL_CLAIM} (held by the shell's kernel, for a live background)`, { status: 403, details: { claim: REVEAL_CLAIM } })
      const name = parseOrThrow(ConnectionName, c.req.param('name'), 'INVALID_REQUEST')
      c.header('cache-control', 'no-store')
      return c.json(await (await installation(c)).revealConnection(caller.id, name))
    },
  }),
  route({
    method: 'post',
    path: '/v1/apps/installs/{app}/vetkeys',
    operationId: 'deriveAppKey',
    summary: "Derive the caller's key for this app and a derivation path, encrypted to a P-256 transport public key",
    auth: 'bearer',
    body: VetkeyRequest,
    maxBodyBytes: SMALL_BODY,
    ok: { 200: 'the encrypted key' },
    response: R.EncryptedKey,
    errors: [...REQUEST_ERRORS, 'APP_NOT_INSTALLED', 'INVALID_TRANSPORT_KEY', 'VETKEYS_NOT_CONFIGURED'],
    handler: async (c) => {
      const request = parseOrThrow(VetkeyRequest, await readJson(c.req.raw), 'INVALID_REQUEST')
      const installed = await (await installation(c)).installed()
      if (!installed) throw notInstalled(c.req.param('app'))
      return c.json(await deriveEncryptedKey(c.env.VETKEYS_SECRET, callerOf(c).id, installed.app, request))
    },
  }),
]

/** The `/v1/apps` router, mounted by worker/neuron.ts: `app.route('/v1/apps', apps)`. */
export const apps = mount('/v1/apps', APP_ROUTES)

/** The caller's installation of the route's `:app`; `APP_NOT_INSTALLED` (404) without creating anything. */
async function installation(c: Ctx): Promise<AppBackendObject> {
  const person = callerOf(c).id
  const app = parseOrThrow(AppId, c.req.param('app'), 'INVALID_REQUEST')
  if (!(await exists(c.env, installKey(person, app)))) throw notInstalled(app)
  return backendOf(c, person, app)
}

function backendOf(c: Ctx, person: string, app: string): AppBackendObject {
  return settled(c.env.APP_BACKENDS.getByName(installationName(person, app))) as unknown as AppBackendObject
}

/** The caller's stored package `hash`; `PACKAGE_NOT_FOUND` (404). */
async function packageOf(c: Ctx, hash: string): Promise<{ hash: string; pkg: AppPackage }> {
  const person = callerOf(c).id
  const valid = parseOrThrow(PackageHash, hash, 'INVALID_REQUEST')
  const pkg = (await exists(c.env, shelfKey(person))) ? await settled(c.env.APP_SHELVES.getByName(person)).getPackage(valid) : null
  if (!pkg) throw new NeuronError('PACKAGE_NOT_FOUND', `no package ${valid} was uploaded by the caller`, { status: 404 })
  return { hash: valid, pkg: pkg as AppPackage }
}

function versionOf(person: string, { hash, pkg }: { hash: string; pkg: AppPackage }): InstalledVersion {
  return { person, app: pkg.manifest.app, version: pkg.manifest.version, hash, methods: pkg.interface.methods, module: pkg.backend?.module ?? null }
}

function summary(version: Pick<InstalledVersion, 'app' | 'version' | 'hash'>): { app: string; version: string; hash: string } {
  return { app: version.app, version: version.version, hash: version.hash }
}

function notInstalled(app: string): NeuronError {
  return new NeuronError('APP_NOT_INSTALLED', `${app} is not installed for the caller`, { status: 404 })
}

function installKey(person: string, app: string): string {
  return `app:${person}/${app}`
}
