/**
 * `/v1/apps`: app packages and the caller's installs of them (docs/backends.md).
 * Packages are checked whole before anything is stored (objects/apps/package.ts),
 * their backend loaded once, under the same bounds as a call (objects/apps/run.ts),
 * to prove it loads and has every declared method. Every install route works on the caller's own
 * installation: the person is the authenticated principal, never a parameter,
 * so no one reaches another person's installation, state, grants or keys.
 */
import { type Context, Hono } from 'hono'
import { z } from 'zod'
import type { AppBackendObject } from '../../objects/apps/backend-object.ts'
import { ConnectionBody, ConnectionName, REVEAL_CLAIM } from '../../objects/apps/connections.ts'
import { frameBase } from '../../objects/apps/frame-files.ts'
import { originOf } from '../../objects/apps/grants.ts'
import { type InstalledVersion, installationName } from '../../objects/apps/installation.ts'
import { AppId, type AppPackage, checkPackage, PackageHash } from '../../objects/apps/package.ts'
import { backendHost, checkBackend } from '../../objects/apps/run.ts'
import { deriveEncryptedKey, VetkeyRequest } from '../../objects/apps/vetkeys.ts'
import { NeuronError } from '../../objects/core/errors.ts'
import { MAX_CALL_BYTES, MAX_CREDENTIAL_BYTES, MAX_PACKAGE_BYTES } from '../../objects/core/limits.ts'
import { settled } from '../../objects/core/rpc.ts'
import { parseOrThrow } from '../../objects/core/validate.ts'
import { limitBody } from '../body-limit.ts'
import { callerOf } from '../caller.ts'
import { exists, register } from '../../objects/directory/keys.ts'
import type { AppEnv } from '../env.ts'
import { readJson } from '../read-json.ts'

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

export const apps = new Hono<AppEnv>()
  .post('/packages', limitBody(PACKAGE_BODY), async (c) => {
    const person = callerOf(c).id
    const { hash, text, pkg } = checkPackage(await readJson(c.req.raw))
    if (pkg.backend) await checkBackend(backendHost(c.env), hash, pkg.backend.module, Object.keys(pkg.interface.methods))
    await register(c.env, shelfKey(person))
    const stored = await settled(c.env.APP_SHELVES.getByName(person)).putPackage(person, { hash, text, app: pkg.manifest.app, version: pkg.manifest.version })
    return c.json(stored, stored.duplicate ? 200 : 201)
  })
  .get('/packages/:hash', async (c) => c.json((await packageOf(c, c.req.param('hash'))).pkg))
  .post('/installs', limitBody(SMALL_BODY), async (c) => {
    const person = callerOf(c).id
    const version = versionOf(person, await packageOf(c, parseOrThrow(InstallBody, await readJson(c.req.raw), 'INVALID_REQUEST').package))
    await register(c.env, installKey(person, version.app))
    await backendOf(c, person, version.app).install(version, { upgrade: false })
    await settled(c.env.APP_SHELVES.getByName(person)).record(person, 'app.installed', summary(version))
    return c.json(summary(version), 201)
  })
  .get('/installs', async (c) => {
    const person = callerOf(c).id
    const items = (await exists(c.env, shelfKey(person))) ? await settled(c.env.APP_SHELVES.getByName(person)).list() : []
    // Each install carries the address its frontend is served at to the shell's frames (app-frames.ts).
    const secret = c.env.TICKET_SECRET
    return c.json({ items: await Promise.all(items.map(async (item) => ({ ...item, files: secret ? await frameBase(secret, person, item.hash) : null }))) })
  })
  .get('/installs/:app', async (c) => {
    const installed = await (await installation(c)).installed()
    if (!installed) throw notInstalled(c.req.param('app'))
    return c.json({ ...summary(installed), methods: installed.methods })
  })
  .put('/installs/:app', limitBody(SMALL_BODY), async (c) => {
    const person = callerOf(c).id
    const backend = await installation(c)
    const version = versionOf(person, await packageOf(c, parseOrThrow(InstallBody, await readJson(c.req.raw), 'INVALID_REQUEST').package))
    if (version.app !== c.req.param('app')) throw new NeuronError('APP_MISMATCH', `the package is ${version.app}, not ${c.req.param('app')}`, { status: 400 })
    const { from } = await backend.install(version, { upgrade: true })
    await settled(c.env.APP_SHELVES.getByName(person)).record(person, 'app.upgraded', summary(version))
    return c.json({ ...summary(version), from })
  })
  .delete('/installs/:app', async (c) => {
    const person = callerOf(c).id
    const removed = await (await installation(c)).uninstall(person)
    await settled(c.env.APP_SHELVES.getByName(person)).record(person, 'app.uninstalled', summary(removed))
    return c.json({ ...summary(removed), uninstalled: true })
  })
  .post('/installs/:app/call', limitBody(MAX_CALL_BYTES), async (c) => {
    const { method, input, kind } = parseOrThrow(CallBody, await readJson(c.req.raw), 'INVALID_REQUEST')
    return c.json(await (await installation(c)).call(method, input, kind))
  })
  .get('/installs/:app/backend-calls', async (c) => c.json({ items: await (await installation(c)).listGrants() }))
  .post('/installs/:app/backend-calls', limitBody(SMALL_BODY), async (c) => {
    const { origin } = parseOrThrow(GrantBody, await readJson(c.req.raw), 'INVALID_REQUEST')
    return c.json(await (await installation(c)).grant(callerOf(c).id, originOf(origin)))
  })
  .delete('/installs/:app/backend-calls', async (c) => {
    const { origin } = parseOrThrow(GrantBody, c.req.query(), 'INVALID_QUERY')
    return c.json(await (await installation(c)).revoke(callerOf(c).id, originOf(origin)))
  })
  .get('/installs/:app/connections', async (c) => c.json({ items: await (await installation(c)).connections() }))
  .put('/installs/:app/connections/:name', limitBody(MAX_CREDENTIAL_BYTES), async (c) => {
    const name = parseOrThrow(ConnectionName, c.req.param('name'), 'INVALID_REQUEST')
    const { secret } = parseOrThrow(ConnectionBody, await readJson(c.req.raw), 'INVALID_REQUEST')
    return c.json(await (await installation(c)).setConnection(callerOf(c).id, name, secret))
  })
  .delete('/installs/:app/connections/:name', async (c) => {
    const name = parseOrThrow(ConnectionName, c.req.param('name'), 'INVALID_REQUEST')
    return c.json(await (await installation(c)).deleteConnection(callerOf(c).id, name))
  })
  .post('/installs/:app/connections/:name/reveal', async (c) => {
    const caller = callerOf(c)
    if (!caller.claims.includes(REVEAL_CLAIM)) throw new NeuronError('CLAIM_REQUIRED', `opening a connection needs the claim ${REVEAL_CLAIM} (held by the shell's kernel, for a live background)`, { status: 403, details: { claim: REVEAL_CLAIM } })
    const name = parseOrThrow(ConnectionName, c.req.param('name'), 'INVALID_REQUEST')
    c.header('cache-control', 'no-store')
    return c.json(await (await installation(c)).revealConnection(caller.id, name))
  })
  .post('/installs/:app/vetkeys', limitBody(SMALL_BODY), async (c) => {
    const request = parseOrThrow(VetkeyRequest, await readJson(c.req.raw), 'INVALID_REQUEST')
    const installed = await (await installation(c)).installed()
    if (!installed) throw notInstalled(c.req.param('app'))
    return c.json(await deriveEncryptedKey(c.env.VETKEYS_SECRET, callerOf(c).id, installed.app, request))
  })

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

/** The directory key of a person's shelf (their packages and install list). */
export function shelfKey(person: string): string {
  return `apps:${person}`
}

function installKey(person: string, app: string): string {
  return `app:${person}/${app}`
}
