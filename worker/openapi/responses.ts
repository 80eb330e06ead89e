/**
 * The JSON Schemas of success responses, one per shape the routes answer with.
 * Plain JSON Schema (2020-12): these shapes are TypeScript interfaces in the
 * objects, not validators, so they are written out here for the document.
 */

type Schema = Record<string, unknown>

const str = { type: 'string' }
const int = { type: 'integer' }
const strings = { type: 'array', items: str }

export const Envelope: Schema = {
  type: 'object',
  required: ['v', 'id', 'seq', 'topic', 'type', 'parent', 'author', 'time', 'headers', 'artifacts'],
  properties: {
    v: { const: 'event-bus-envelope-v1' },
    id: { ...str, description: 'sha256 of the RFC 8785 canonical form of everything but id (with payloadRef, not payload, when spilled)' },
    seq: int,
    topic: str,
    type: str,
    parent: { type: ['string', 'null'] },
    author: str,
    time: int,
    headers: { type: 'array', items: { type: 'object', required: ['key', 'value'], properties: { key: str, value: {}, reason: str, ref: str } } },
    schema: str,
    payload: { description: 'always present when the envelope has a payload, also when it was spilled' },
    payloadRef: { type: 'object', required: ['ref', 'hash', 'size'], properties: { ref: str, hash: str, size: int }, description: 'set when the payload is kept in the artifact store' },
    artifacts: { type: 'array', items: { type: 'object', required: ['ref'], properties: { ref: str, hash: str, kind: str } } },
  },
}

/** A JSON-RPC 2.0 response (or a batch of them), as MCP defines them. */
export const JsonRpc: Schema = { type: ['object', 'array'], description: 'JSON-RPC 2.0: { jsonrpc, id, result } or { jsonrpc, id, error }' }

/** A JSON-RPC 2.0 error response: what the MCP transport answers a message it cannot take (`id` null when it could not be read). */
export const JsonRpcError: Schema = {
  type: 'object',
  required: ['jsonrpc', 'error', 'id'],
  properties: {
    jsonrpc: { const: '2.0' },
    id: { type: ['string', 'integer', 'null'] },
    error: {
      type: 'object',
      required: ['code', 'message'],
      properties: { code: { type: 'integer', description: '-32700 parse error, -32600 invalid request, -32000 transport refusal' }, message: str, data: {} },
    },
  },
}

/** A page of `item`s with the cursor to the next one (`null`: the last page). */
const pageOf = (item: Schema): Schema => ({
  type: 'object',
  required: ['items', 'next'],
  properties: { items: { type: 'array', items: item }, next: { type: ['integer', 'null'], description: 'pass as `after` for the next page' } },
})

export const Page: Schema = pageOf(Envelope)

export const Denials: Schema = { ...Page, required: ['items', 'next', 'suppressedThisHour'], properties: { ...(Page.properties as Schema), suppressedThisHour: int } }

export const Appended: Schema = { type: 'object', required: ['envelope', 'duplicate'], properties: { envelope: Envelope, duplicate: { type: 'boolean' } } }

export const Head: Schema = { type: 'object', required: ['seq'], properties: { seq: int } }

export const RegisteredSchema: Schema = {
  type: 'object',
  required: ['ref', 'plane', 'hash', 'jsonSchema'],
  properties: { ref: str, plane: { enum: [1, 2, 3] }, hash: str, jsonSchema: { type: 'object' } },
}

export const SessionListings: Schema = {
  type: 'object',
  required: ['items', 'next'],
  properties: {
    items: {
      type: 'array',
      items: {
        type: 'object',
        required: ['id', 'title', 'model', 'createdAt', 'archived'],
        properties: {
          id: str,
          title: { type: ['string', 'null'], description: "the owner's title, else the one it was created with, else (live) its first prompt's" },
          model: str,
          createdAt: int,
          forkedFrom: { ...str, description: 'the session it was forked from' },
          agent: { ...str, description: 'the agent profile it was created with' },
          archived: { type: 'boolean' },
          live: {
            description: 'with `live=true`: read from the session now (null: it did not answer)',
            oneOf: [
              { type: 'null' },
              {
                type: 'object',
                required: ['status', 'lastActivityAt', 'approvals', 'agent', 'promptTitle', 'lastSequence'],
                properties: {
                  status: { enum: ['idle', 'running', 'waiting', 'halted'], description: 'waiting: a permission request waits for the owner' },
                  lastActivityAt: int,
                  approvals: { ...int, description: 'permission requests waiting for the owner' },
                  agent: str,
                  promptTitle: { type: ['string', 'null'] },
                  lastSequence: { ...int, description: 'the last event folded: later stream events move it on' },
                },
              },
            ],
          },
        },
      },
    },
    next: { type: ['integer', 'null'], description: 'pass as `after` for the next page (in the same order)' },
  },
}

export const SessionListed: Schema = {
  type: 'object',
  required: ['id', 'title', 'archived'],
  properties: { id: str, title: { type: ['string', 'null'] }, archived: { type: 'boolean' } },
}

export const OrchestrationListings: Schema = pageOf({
  type: 'object',
  required: ['id', 'goal', 'createdAt'],
  properties: { id: str, goal: { ...str, description: "the goal's first line, at most 200 characters" }, createdAt: int },
})

export const SessionView: Schema = {
  type: 'object',
  required: ['id', 'title', 'owner', 'share', 'model', 'agent', 'status', 'step', 'createdAt', 'pending', 'counts', 'lastSequence'],
  properties: {
    id: str,
    title: { type: ['string', 'null'] },
    owner: str,
    share: strings,
    model: str,
    agent: { ...str, description: 'the agent profile the session runs (GET /v1/agents)' },
    status: { enum: ['idle', 'busy'] },
    step: { type: ['string', 'null'] },
    createdAt: int,
    pending: int,
    counts: { type: 'object', properties: { events: int, prompts: int, steps: int, toolCalls: int } },
    usage: { type: 'object', description: "the steps' reported tokens and cost (USD), summed", properties: { inputTokens: int, outputTokens: int, cost: { type: 'number' } } },
    lastSequence: int,
  },
}

const burn = { type: 'object', required: ['tokens', 'cost'], properties: { tokens: { type: 'number' }, cost: { type: 'number' } } }
const beats = ['waiting', 'assigned', 'declared', 'awaiting-human', 'cleared', 'executing', 'reported', 'failed', 'blocked', 'cancelled']

export const OrchestrationView: Schema = {
  type: 'object',
  required: ['id', 'goal', 'owner', 'share', 'model', 'status', 'reason', 'planned', 'planner', 'workspace', 'budget', 'burn', 'packages', 'createdAt', 'lastSequence'],
  properties: {
    id: str,
    goal: str,
    owner: str,
    share: strings,
    model: str,
    status: { enum: ['running', 'completed', 'failed', 'cancelled'] },
    reason: { type: ['string', 'null'] },
    planned: { type: 'boolean', description: 'false while a planning turn is producing the plan' },
    planner: { type: ['string', 'null'], description: "the planner agent's session, when there was one" },
    workspace: { enum: ['own', 'shared'], description: "where the packages' file tools act: each agent's own workspace, or the orchestration's shared one" },
    budget: { type: 'object', properties: { tokens: int, cost: { type: 'number' } } },
    burn,
    packages: {
      type: 'array',
      items: {
        type: 'object',
        required: ['id', 'needs', 'added', 'beat', 'agent', 'session', 'profile', 'inline', 'attempts', 'declaration', 'burn', 'result', 'reason'],
        properties: {
          id: str,
          needs: { ...strings, description: 'dependencies, including edges clearance added' },
          added: { ...strings, description: 'the edges clearance added to resolve a conflict' },
          beat: { enum: beats },
          agent: { type: ['string', 'null'], description: 'the current agent token' },
          session: { type: ['string', 'null'], description: "the agent's session name, orchestration.{id}.agent.{token}" },
          profile: { ...str, description: "the agent profile the package's session runs (the plan's `agent`, or default)" },
          inline: { type: ['string', 'null'], description: 'why the fan-out rule ran the package inline in a shared agent, or null when it had its own' },
          attempts: int,
          declaration: { type: ['object', 'null'], properties: { reads: strings, writes: strings } },
          burn,
          result: {},
          reason: { type: ['string', 'null'] },
        },
      },
    },
    createdAt: int,
    lastSequence: int,
  },
}

export const Cancelled: Schema = {
  type: 'object',
  required: ['cancelled', 'entry'],
  properties: { cancelled: { ...strings, description: 'packages this entry cancelled' }, entry: { type: ['integer', 'null'], description: 'sequence of the control entry; null when nothing was left to cancel' } },
}

export const Receipt: Schema = {
  type: 'object',
  required: ['id', 'session', 'sequence', 'status'],
  properties: { id: str, session: str, sequence: int, status: { const: 'admitted' } },
}

export const Interrupted: Schema = {
  type: 'object',
  required: ['interrupted', 'step', 'request', 'pending', 'message'],
  properties: { interrupted: { type: 'boolean' }, step: { type: ['string', 'null'] }, request: { type: ['string', 'null'] }, pending: int, message: str, duplicate: { const: true } },
}

const PendingPermission = {
  type: 'object',
  required: ['toolCallId', 'step', 'tool', 'source', 'subjects', 'input', 'reason', 'expiresAt'],
  properties: { toolCallId: str, step: str, tool: str, source: str, subjects: strings, input: {}, reason: str, expiresAt: { ...int, description: 'ms since the epoch; then the call fails PERMISSION_TIMEOUT' } },
}

export const PendingPermissions: Schema = { type: 'object', required: ['items'], properties: { items: { type: 'array', items: PendingPermission } } }

export const PermissionAnswered: Schema = {
  type: 'object',
  required: ['toolCallId', 'reply', 'rules', 'duplicate'],
  properties: {
    toolCallId: str,
    reply: { enum: ['once', 'always', 'reject'] },
    rules: { type: 'array', items: { type: 'object' }, description: "the rules an 'always' added to the session's config" },
    duplicate: { type: 'boolean', description: 'the same answer was already recorded; nothing was written' },
  },
}

const CredentialInfo = { type: 'object', required: ['provider', 'setAt'], properties: { provider: str, setAt: str } }
/** Which providers have a stored key and when it was set: never the key. */
export const Credentials: Schema = { type: 'object', required: ['items'], properties: { items: { type: 'array', items: CredentialInfo } } }
export const Credential: Schema = CredentialInfo
const McpHeaderInfo = { type: 'object', required: ['server', 'setAt', 'names'], properties: { server: str, setAt: str, names: { type: 'array', items: str } } }
/** Which MCP servers have stored headers, when they were set and the headers' names: never their values. */
export const McpHeaders: Schema = { type: 'object', required: ['items'], properties: { items: { type: 'array', items: McpHeaderInfo } } }
export const McpHeaderSet: Schema = McpHeaderInfo
const McpOAuthInfo = {
  type: 'object',
  required: ['server', 'url', 'authorized', 'setAt', 'expiresAt', 'pending'],
  properties: { server: str, url: { type: ['string', 'null'] }, authorized: { type: 'boolean' }, setAt: { type: ['string', 'null'] }, expiresAt: { type: ['string', 'null'] }, pending: { type: 'boolean' } },
}
/** Which MCP servers have an OAuth grant: never a token or a client secret. */
export const McpOAuthList: Schema = { type: 'object', required: ['items'], properties: { items: { type: 'array', items: McpOAuthInfo } } }
export const McpOAuthStarted: Schema = { type: 'object', required: ['server', 'authorizationUrl', 'expiresAt'], properties: { server: str, authorizationUrl: str, expiresAt: str } }
export const McpOAuthCompleted: Schema = { type: 'object', required: ['server', 'authorized'], properties: { server: str, authorized: { const: true } } }
const coded = { type: 'object', required: ['code', 'message'], properties: { code: str, message: str, details: { type: 'object' } } }
const McpServerStatus = {
  type: 'object',
  required: ['name', 'url', 'tools', 'refused', 'error', 'listedAt'],
  properties: {
    name: str,
    url: str,
    tools: { type: 'array', items: str },
    refused: { type: 'array', items: { type: 'object', required: ['tool', 'code', 'message'], properties: { tool: str, code: str, message: str } } },
    error: { oneOf: [coded, { type: 'null' }] },
    listedAt: { type: ['integer', 'null'] },
  },
}
/** A session's MCP servers as it last listed them. */
export const SessionMcpServers: Schema = { type: 'object', required: ['items'], properties: { items: { type: 'array', items: McpServerStatus } } }
export const McpHeadersDeleted: Schema = { type: 'object', required: ['server', 'deleted'], properties: { server: str, deleted: { type: 'boolean' } } }
export const CredentialDeleted: Schema = { type: 'object', required: ['provider', 'deleted'], properties: { provider: str, deleted: { type: 'boolean' } } }
export const ConfigVersion: Schema = { type: 'object', required: ['version', 'etag', 'document'], properties: { version: int, etag: str, document: { type: 'object' } } }

export const JsonSchema: Schema = { type: 'object', required: ['$schema'], properties: { $schema: str, $id: str } }

export const Ticket: Schema = { type: 'object', required: ['ticket', 'expiresAt'], properties: { ticket: str, expiresAt: int } }
/** The one-click dev sign-in's answer. */
export const DevToken: Schema = { type: 'object', required: ['token', 'expiresAt'], properties: { token: str, expiresAt: int } }

export const SignedIn: Schema = { type: 'object', required: ['signedIn', 'expiresAt'], properties: { signedIn: { type: 'boolean' }, expiresAt: int } }

export const Refreshed: Schema = { type: 'object', required: ['token', 'expiresAt', 'signInExpiresAt'], properties: { token: str, expiresAt: int, signInExpiresAt: int } }

export const SignedOut: Schema = { type: 'object', required: ['revoked'], properties: { revoked: { type: 'boolean' } } }

export const Me: Schema = { type: 'object', required: ['id', 'claims'], properties: { id: str, issuer: str, subject: str, claims: strings, via: str } }

export const Usage: Schema = {
  type: 'object',
  required: ['requests', 'byRoute', 'turns', 'tokens', 'cost'],
  properties: { requests: int, byRoute: { type: 'object', additionalProperties: int }, turns: int, tokens: { type: 'object' }, cost: { type: 'number' } },
}

export const OpenApi: Schema = { type: 'object', required: ['openapi', 'paths'], properties: { openapi: str, paths: { type: 'object' } } }

/** Success bodies that are not JSON: their media type and a string schema. */
export const HTML = { mediaType: 'text/html', schema: str }
export const EVENT_STREAM = { mediaType: 'text/event-stream', schema: { ...str, description: 'SSE frames; see docs/api.md' } }

// ── Graph and memory ──────────────────────────────────────────────────────

const nullable = (schema: Schema): Schema => ({ anyOf: [schema, { type: 'null' }] })

export const GraphNode: Schema = {
  type: 'object',
  required: ['address', 'kind', 'id', 'text', 'data', 'author', 'time', 'envelope'],
  properties: { address: { ...str, description: 'node.{kind}.{id}' }, kind: str, id: str, text: { type: ['string', 'null'] }, data: {}, author: str, time: int, envelope: str },
}

const Retirement: Schema = {
  type: 'object',
  required: ['id', 'how', 'reason', 'by', 'author', 'time'],
  properties: { id: str, how: { enum: ['pruned', 'superseded'] }, reason: str, by: { type: ['string', 'null'] }, author: str, time: int },
}

export const GraphEdge: Schema = {
  type: 'object',
  required: ['id', 'seq', 'type', 'source', 'target', 'author', 'time', 'parent', 'payload', 'retired'],
  properties: { id: str, seq: int, type: str, source: str, target: str, author: str, time: int, parent: { type: ['string', 'null'] }, payload: {}, retired: nullable(Retirement) },
}

const next = { type: ['integer', 'null'], description: 'pass as `after` for the next page' }

export const EdgePage: Schema = { type: 'object', required: ['items', 'next'], properties: { items: { type: 'array', items: GraphEdge }, next } }

export const NodeState: Schema = {
  type: 'object',
  required: ['node', 'current', 'history', 'supersedes', 'supersededBy', 'next'],
  properties: { node: GraphNode, current: { type: 'array', items: GraphEdge }, history: { type: 'array', items: GraphEdge }, supersedes: strings, supersededBy: strings, next },
}

export const PathPage: Schema = {
  type: 'object',
  required: ['items', 'next'],
  properties: { items: { type: 'array', items: { type: 'object', required: ['address', 'depth', 'edges'], properties: { address: str, depth: int, edges: strings } } }, next },
}

export const Recalled: Schema = {
  type: 'object',
  required: ['address', 'text', 'edge', 'type', 'time', 'score', 'sources'],
  properties: { address: str, text: str, edge: str, type: { enum: ['remembers', 'pins'] }, time: int, score: { type: 'number' }, sources: strings },
}

export const Recalls: Schema = { type: 'object', required: ['items'], properties: { items: { type: 'array', items: Recalled } } }

export const Forgotten: Schema = { type: 'object', required: ['forgotten', 'replacement'], properties: { forgotten: GraphEdge, replacement: nullable(Recalled) } }

export const Truncated: Schema = { type: 'object', required: ['head', 'truncated'], properties: { head: str, truncated: { ...int, description: 'the sequence of the truncated event' } } }

/** `GET /v1/agents`: the agent profiles the caller sees (objects/agents/resolve.ts). */
export const AgentListings: Schema = {
  type: 'object',
  required: ['items'],
  properties: {
    items: {
      type: 'array',
      items: {
        type: 'object',
        required: ['name', 'source', 'layers', 'profile'],
        properties: {
          name: str,
          source: { enum: ['builtin', 'deployment', 'config'], description: 'the layer that gave the profile last (its fields win)' },
          layers: { type: 'array', items: { enum: ['builtin', 'deployment', 'config'] }, description: 'every layer that gives it, lowest first' },
          profile: { type: 'object', description: 'the merged fields, as the config document’s `agents` entries (/v1/config/schema.json)' },
        },
      },
    },
  },
}
