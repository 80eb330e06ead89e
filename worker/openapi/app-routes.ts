/**
 * The `/v1/apps` routes in the route table (see routes.ts for the shape): app
 * packages, the caller's installs, backend calls, outbound grants,
 * connections and derived keys. Kept beside the main table so neither file
 * grows past one screenful of ideas.
 */
import { ConnectionBody } from '../../objects/apps/connections.ts'
import { AppPackage } from '../../objects/apps/package.ts'
import { VetkeyRequest } from '../../objects/apps/vetkeys.ts'
import { MAX_CALL_BYTES, MAX_CREDENTIAL_BYTES } from '../../objects/core/limits.ts'
import { CallBody, GrantBody, InstallBody, PACKAGE_BODY, SMALL_BODY } from '../routes/apps.ts'
import { BODY_ERRORS, REQUEST_ERRORS } from './body-errors.ts'
import * as R from './app-responses.ts'
import type { RouteDoc } from './routes.ts'

/** Every route under `/v1/apps/installs/{app}` resolves the caller's installation first. */
const INSTALL_ERRORS = ['INVALID_REQUEST', 'APP_NOT_INSTALLED']

export const APP_ROUTES: RouteDoc[] = [
  {
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
  },
  { method: 'get', path: '/v1/apps/packages/{hash}', operationId: 'getAppPackage', summary: 'A package the caller uploaded, as stored', auth: 'bearer', ok: { 200: 'the package' }, response: R.Package, errors: ['INVALID_REQUEST', 'PACKAGE_NOT_FOUND'] },
  {
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
  },
  { method: 'get', path: '/v1/apps/installs', operationId: 'listInstalls', summary: "The caller's installed apps and their versions", auth: 'bearer', ok: { 200: 'the list' }, response: R.Installs, errors: [] },
  { method: 'get', path: '/v1/apps/installs/{app}', operationId: 'getInstall', summary: 'The installed version and its interface (the schemas every call is checked with)', auth: 'bearer', ok: { 200: 'the installation' }, response: R.Installation, errors: INSTALL_ERRORS },
  {
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
  },
  { method: 'delete', path: '/v1/apps/installs/{app}', operationId: 'uninstallApp', summary: 'Uninstall: calls are refused; the history stays in the installation ledger', auth: 'bearer', ok: { 200: 'uninstalled' }, response: R.Uninstalled, errors: INSTALL_ERRORS },
  {
    method: 'post',
    path: '/v1/apps/installs/{app}/call',
    operationId: 'callBackend',
    summary: "Call a method of the installed backend: input and output checked against the installed interface; a query reads, an update appends",
    auth: 'bearer',
    body: CallBody,
    maxBodyBytes: MAX_CALL_BYTES,
    ok: { 200: 'the output' },
    response: R.CallOutput,
    errors: [...REQUEST_ERRORS, 'APP_NOT_INSTALLED', 'UNKNOWN_METHOD', 'METHOD_KIND_MISMATCH', 'INVALID_INPUT', 'INVALID_OUTPUT', 'BACKEND_FAILED', 'BACKEND_TIMEOUT', 'BACKEND_LIMIT', 'BACKEND_UNAVAILABLE'],
  },
  { method: 'get', path: '/v1/apps/installs/{app}/backend-calls', operationId: 'listBackendCalls', summary: 'The origins the backend may reach (backend_calls.list)', auth: 'bearer', ok: { 200: 'the grants' }, response: R.Grants, errors: INSTALL_ERRORS },
  {
    method: 'post',
    path: '/v1/apps/installs/{app}/backend-calls',
    operationId: 'grantBackendCall',
    summary: 'Grant the backend outbound access to an origin (backend_calls.request, after consent)',
    auth: 'bearer',
    body: GrantBody,
    maxBodyBytes: SMALL_BODY,
    ok: { 200: 'granted (or already granted)' },
    response: R.Grant,
    errors: [...REQUEST_ERRORS, 'APP_NOT_INSTALLED', 'INVALID_ORIGIN', 'TOO_MANY_GRANTS'],
  },
  { method: 'delete', path: '/v1/apps/installs/{app}/backend-calls', operationId: 'revokeBackendCall', summary: 'Revoke an origin; the next request to it is refused', auth: 'bearer', query: GrantBody, ok: { 200: '{ origin, revoked }' }, response: R.Revoked, errors: [...INSTALL_ERRORS, 'INVALID_QUERY', 'INVALID_ORIGIN'] },
  { method: 'get', path: '/v1/apps/installs/{app}/connections', operationId: 'listConnections', summary: "The installation's connections and when each was set (never the secret)", auth: 'bearer', ok: { 200: 'the list' }, response: R.Connections, errors: INSTALL_ERRORS },
  {
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
  },
  { method: 'delete', path: '/v1/apps/installs/{app}/connections/{name}', operationId: 'deleteConnection', summary: 'Remove a connection (a new version of the sealed set without it)', auth: 'bearer', ok: { 200: '{ name, deleted }' }, response: R.ConnectionDeleted, errors: INSTALL_ERRORS },
  {
    method: 'post',
    path: '/v1/apps/installs/{app}/connections/{name}/reveal',
    operationId: 'revealConnection',
    summary: "Open a connection's secret: for the shell's kernel (claim scope:apps.connections.reveal), to hand to the app's live background",
    auth: 'bearer',
    ok: { 200: 'the secret (cache-control: no-store)' },
    response: R.RevealedConnection,
    errors: [...INSTALL_ERRORS, 'CLAIM_REQUIRED', 'CONNECTION_NOT_FOUND', 'CREDENTIALS_NOT_CONFIGURED'],
  },
  {
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
  },
]
