/**
 * The typed client stays in step with the API: every operation in the route
 * table is either called by a client method (checked by running the method
 * against a recording fetch and matching the request it makes to the route's
 * method and path), or listed below with the reason the client leaves it out.
 * A new route fails this test until it gets a client method or a reason.
 */
import { describe, expect, it } from 'vitest'
import { NeuronClient } from '../../client/index.ts'
import { ROUTES } from '../../worker/openapi/routes.ts'

/** Operations the client does not offer, and why. */
const NOT_IN_CLIENT: Record<string, string> = {
  getOpenApi: 'the document itself: generators read it, the client is written from the same table',
  getDocs: 'an HTML page for people',
  devToken: 'the shell page\'s one-click sign-in (shell-web/agent/connection.ts); the CLI signs the dev identity locally from .dev.vars',
  signIn: 'the shell page\'s lasting sign-in, a cookie for a browser (shell-web/agent/connection.ts); the CLI keeps its own token',
  refreshSignIn: 'the shell page\'s lasting sign-in: see signIn',
  signOut: 'the shell page\'s lasting sign-in: see signIn',
  getUsage: 'metering totals for operators; read with fetch',
  openOrchestrationSocket: 'the client follows orchestrations over SSE only',
  truncateSession: 'not yet in the client: truncate is an operator tool (curl in docs/sessions.md)',
  getSessionDenials: 'an operator view; read with fetch',
  appendEnvelope: 'raw named ledgers are the seed layer below sessions; reached with fetch (docs/api.md)',
  listEnvelopes: 'raw named ledgers: see appendEnvelope',
  getEnvelope: 'raw named ledgers: see appendEnvelope',
  listAncestors: 'raw named ledgers: see appendEnvelope',
  listDescendants: 'raw named ledgers: see appendEnvelope',
  getLedgerHead: 'raw named ledgers: see appendEnvelope',
  registerSchema: 'raw named ledgers: see appendEnvelope',
  mcp: 'MCP clients speak to /v1/mcp with an MCP SDK (docs/mcp.md), not with this client',
  mcpStream: 'MCP: see mcp (405: there is no GET stream)',
  receiveHook: 'an outside sender signs and posts its deliveries itself (docs/schedules.md#webhooks-in)',
  mcpOAuthCallback: "the authorization server redirects the principal's browser here; no client calls it",
}

type Call = (neuron: NeuronClient) => Promise<unknown>

/** One call of the client per operation it covers; ids are placeholders, the fetch below answers everything. */
const CALLS: Record<string, Call> = {
  getMe: (n) => n.me(),
  listAgents: (n) => n.agents(),
  getConfig: (n) => n.config.get(),
  putConfig: (n) => n.config.put({}),
  getConfigSchema: (n) => n.config.schema(),
  listCredentials: (n) => n.config.credentials(),
  putCredential: (n) => n.config.setCredential('anthropic', 'k'),
  deleteCredential: (n) => n.config.deleteCredential('anthropic'),
  listMcpHeaders: (n) => n.mcp.headers(),
  putMcpHeaders: (n) => n.mcp.setHeaders('notes', { authorization: 'Bearer t' }),
  deleteMcpHeaders: (n) => n.mcp.deleteHeaders('notes'),
  listMcpOAuth: (n) => n.mcp.authorizations(),
  startMcpOAuth: (n) => n.mcp.authorize('notes'),
  forgetMcpOAuth: (n) => n.mcp.forget('notes'),
  listSessionMcpServers: (n) => n.session('s1').mcpServers(),
  createSession: (n) => n.createSession({}),
  listSessions: (n) => n.sessions(),
  markSession: (n) => n.session('s').mark({ title: 't' }),
  forkSession: (n) => n.session('s').fork({ at: 1 }),
  getSession: (n) => n.session('s1').view(),
  promptSession: (n) => n.session('s1').prompt('hi'),
  interruptSession: (n) => n.session('s1').interrupt(),
  getSessionConfig: (n) => n.sessionConfig('s1').get(),
  putSessionConfig: (n) => n.sessionConfig('s1').put({}),
  getSessionHistory: (n) => n.session('s1').history(),
  getSessionArtifact: (n) => n.session('s1').artifact(`sha256:${'a'.repeat(64)}`),
  listSessionPermissions: (n) => n.session('s1').permissions(),
  answerSessionPermission: (n) => n.session('s1').answerPermission({ toolCallId: 'call_1', reply: 'once' }),
  listSchedules: (n) => n.session('s1').schedules.list(),
  createSchedule: (n) => n.session('s1').schedules.create({ when: { kind: 'after', seconds: 5 }, prompt: { text: 'hi' } }),
  changeSchedule: (n) => n.session('s1').schedules.change('daily', { when: { kind: 'every', seconds: 3600 }, prompt: { text: 'hi' } }),
  deleteSchedule: (n) => n.session('s1').schedules.delete('daily'),
  listHooks: (n) => n.session('s1').hooks.list(),
  createHook: (n) => n.session('s1').hooks.create({ name: 'ci', template: 'the build: {{body}}' }),
  listWorkspace: (n) => n.session('s1').workspace.list({ dir: 'src' }),
  readWorkspaceFile: (n) => n.session('s1').workspace.read('a.txt', { line: 1, lines: 2 }),
  uploadWorkspaceFile: (n) => n.session('s1').workspace.upload('a.txt', new Uint8Array([104, 105])),
  uploadWorkspaceTar: (n) => n.session('s1').workspace.uploadTar(new Uint8Array(1024)),
  downloadWorkspaceTar: (n) => n.session('s1').workspace.download(),
  diffWorkspace: (n) => n.session('s1').workspace.diff(1),
  listOrchestrationWorkspace: (n) => n.orchestration('o1').workspace.list({ dir: 'notes' }),
  readOrchestrationWorkspaceFile: (n) => n.orchestration('o1').workspace.read('notes/a.md'),
  downloadOrchestrationWorkspaceTar: (n) => n.orchestration('o1').workspace.download(),
  diffOrchestrationWorkspace: (n) => n.orchestration('o1').workspace.diff(1),
  mintStreamTicket: (n) => n.session('s1').ticket(),
  streamSessionEvents: (n) => first(n.session('s1').events()),
  openSessionSocket: (n) => socketUrl(n),
  createNode: (n) => n.graph().putNode({ kind: 'person', id: 'ada' }),
  getNode: (n) => n.graph().node('node.person.ada'),
  listNeighbours: (n) => n.graph().neighbours('node.person.ada'),
  listPaths: (n) => n.graph().paths('node.person.ada'),
  createEdge: (n) => n.graph().link({ source: 'node.a.b', target: 'node.c.d', type: 'regards' }),
  getEdge: (n) => n.graph().edge('e1'),
  pruneEdge: (n) => n.graph().prune('e1', 'because'),
  remember: (n) => n.memory().remember({ text: 'x' }),
  recall: (n) => n.memory().recall({ query: 'x' }),
  forget: (n) => n.memory().forget({ address: 'node.knowledge.k', reason: 'r' }),
  listPinned: (n) => n.memory().pinned(),
  createOrchestration: (n) => n.createOrchestration({ goal: 'g' }),
  listOrchestrations: (n) => n.orchestrations(),
  getOrchestration: (n) => n.orchestration('o1').view(),
  getOrchestrationHistory: (n) => n.orchestration('o1').history(),
  cancelOrchestration: (n) => n.orchestration('o1').cancel(),
  decideClearance: (n) => n.orchestration('o1').clearance('p1', { decision: 'grant' }),
  streamOrchestrationEvents: (n) => first(n.orchestration('o1').events()),
  uploadModule: (n) => n.modules.upload({ module: 'm', code: 'export default {}', tools: [{ name: 't', description: 'd', input: {}, output: {} }] }),
  listModules: (n) => n.modules.list(),
  getModule: (n) => n.modules.get('m'),
  retireModule: (n) => n.modules.retire('m'),
  uploadAppPackage: (n) => n.apps.upload({ manifest: { app: 'a', version: '1', name: 'A', entry: 'i.html' }, files: { 'i.html': '' } }),
  getAppPackage: (n) => n.apps.package('0'.repeat(64)),
  installApp: (n) => n.apps.install('0'.repeat(64)),
  listInstalls: (n) => n.apps.installs(),
  getInstall: (n) => n.apps.app('a').view(),
  upgradeApp: (n) => n.apps.app('a').upgrade('0'.repeat(64)),
  uninstallApp: (n) => n.apps.app('a').uninstall(),
  callBackend: (n) => n.apps.app('a').call('m', {}),
  listBackendCalls: (n) => n.apps.app('a').grants(),
  grantBackendCall: (n) => n.apps.app('a').grant('https://example.com'),
  revokeBackendCall: (n) => n.apps.app('a').revoke('https://example.com'),
  listConnections: (n) => n.apps.app('a').connections(),
  putConnection: (n) => n.apps.app('a').setConnection('c', 's'),
  deleteConnection: (n) => n.apps.app('a').deleteConnection('c'),
  revealConnection: (n) => n.apps.app('a').revealConnection('c'),
  deriveAppKey: (n) => n.apps.app('a').deriveKey({ derivationPath: 'p', transportPublicKey: { kty: 'EC', crv: 'P-256', x: 'x', y: 'y' } }),
}

async function first(iterator: AsyncGenerator<unknown>): Promise<void> {
  await iterator.next()
  await iterator.return(undefined)
}

/** Opens the session's socket with a WebSocket that records the URL it is given and opens at once. */
async function socketUrl(neuron: NeuronClient): Promise<void> {
  class RecordingSocket extends EventTarget {
    constructor(url: string) {
      super()
      requests.push({ method: 'GET', path: new URL(url).pathname })
      queueMicrotask(() => this.dispatchEvent(new Event('open')))
    }
    send(): void {}
    close(): void {}
  }
  const socket = neuron.socket('s1', { WebSocket: RecordingSocket as unknown as typeof WebSocket })
  await socket.open()
  socket.close()
}

let requests: { method: string; path: string }[] = []

/** Answers every request as the route would on success, with a body general enough for each method. */
const recording: typeof fetch = async (input, init) => {
  const url = new URL(typeof input === 'string' ? input : input instanceof URL ? input.href : input.url)
  requests.push({ method: (init?.method ?? 'GET').toUpperCase(), path: url.pathname })
  if (url.pathname.endsWith('/events')) return new Response('id: 1\nevent: x\ndata: {"seq":1}\n\n', { headers: { 'content-type': 'text/event-stream' } })
  return Response.json({ id: 'x', items: [], next: null, node: {}, edge: {}, memory: {}, ticket: 't', expiresAt: 0 }, { status: 200 })
}

function matches(route: { method: string; path: string }, request: { method: string; path: string }): boolean {
  const pattern = new RegExp(`^${route.path.replace(/\{[^}]+\}/g, '[^/]+')}$`)
  return route.method.toUpperCase() === request.method && pattern.test(request.path)
}

describe('the client covers every declared route', () => {
  it('every operation has a client call or a reason to be left out, and no reason names a covered one', () => {
    const ids = ROUTES.map((r) => r.operationId)
    expect(ids.filter((id) => !(id in CALLS) && !(id in NOT_IN_CLIENT))).toEqual([])
    expect(Object.keys(CALLS).filter((id) => id in NOT_IN_CLIENT)).toEqual([])
    expect([...Object.keys(CALLS), ...Object.keys(NOT_IN_CLIENT)].filter((id) => !ids.includes(id))).toEqual([])
  })

  for (const route of ROUTES.filter((r) => r.operationId in CALLS)) {
    it(`${route.operationId}: ${route.method.toUpperCase()} ${route.path}`, async () => {
      requests = []
      const neuron = new NeuronClient({ url: 'http://neuron.test', token: 't', fetch: recording })
      await CALLS[route.operationId]!(neuron)
      expect(requests.some((request) => matches(route, request)), JSON.stringify(requests)).toBe(true)
    })
  }
})
