/**
 * The client's types, derived from the server's own definitions: request bodies
 * from the zod schemas the routes validate with (objects/session/intake/schemas.ts),
 * answers from the types the server builds them with. Type-only imports: nothing
 * of the server runs in the client.
 */
import type { z } from 'zod'
import type { Stored } from '../objects/ledger/envelope.ts'
import type { Page } from '../objects/ledger/page.ts'
import type { Receipt } from '../objects/session/intake/admission.ts'
import type { SessionFrame as Frame } from '../objects/session/turn/open-step.ts'
import type { SessionView } from '../objects/session/events/projection.ts'
import type { CreateSessionSchema, PromptSchema } from '../objects/session/intake/schemas.ts'
import type { InterruptReply } from '../objects/session/intake/control.ts'
import type { ConfigSchema } from '../objects/config/schema.ts'
import type { ConfigVersion, CredentialInfo, McpHeaderInfo, McpOAuthInfo } from '../objects/config/views.ts'
import type { OrchestrationListing, SessionListing } from '../objects/directory/listing.ts'
import type { EdgeView, NodeState, NodeView } from '../objects/graph/node-state.ts'
import type { Forgotten, Linked, NodeFold, Paged, PutNode, Reached, Recalled } from '../objects/graph/views.ts'
import type { EdgeBody, FoldQuery, ForgetBody, NeighbourQuery, NodeBody, PathQuery, RecallBody, RememberBody } from '../objects/graph/inputs.ts'
import type { CancelSchema, ClearanceSchema, CreateOrchestrationSchema } from '../objects/orchestration/schemas.ts'
import type { CancelOutcome, OrchestrationView } from '../objects/orchestration/state.ts'
import type { ConnectionInfo } from '../objects/apps/connections.ts'
import type { Grant } from '../objects/apps/grants.ts'
import type { InstalledVersion, InstallInfo, StoredPackage } from '../objects/apps/installation.ts'
import type { AppPackage } from '../objects/apps/package.ts'
import type { ModuleUpload, ModuleVersion, StoredModule } from '../objects/modules/module.ts'
import type { EncryptedKey, VetkeyRequest } from '../objects/apps/vetkeys.ts'
import type { McpOAuthStartBody } from '../objects/tools/mcp/servers.ts'
import type { McpServerStatus } from '../objects/tools/mcp/toolset.ts'
import type { AgentListing } from '../objects/agents/resolve.ts'

export type CreateSessionInput = z.input<typeof CreateSessionSchema>
export type PromptInput = z.input<typeof PromptSchema>
export type { AgentListing, ConfigVersion, OrchestrationListing, OrchestrationView, Page, Receipt, SessionListing, SessionView, Stored }

export type CreateOrchestrationInput = z.input<typeof CreateOrchestrationSchema>
export type CancelInput = z.input<typeof CancelSchema>
export type CancelResult = CancelOutcome
export type ClearanceInput = z.input<typeof ClearanceSchema>
/** The config document as written (`PUT /v1/config`, `PUT /v1/sessions/{id}/config`). */
export type ConfigInput = z.input<typeof ConfigSchema>
export type CredentialEntry = CredentialInfo
export type McpHeaderEntry = McpHeaderInfo
export type McpOAuthEntry = McpOAuthInfo
export type McpAuthorizeInput = z.input<typeof McpOAuthStartBody>
/** A session's MCP server as it last listed it (`error.code` `MCP_AUTH_REQUIRED`: authorize it first). */
export type SessionMcpServer = McpServerStatus

export type NodeInput = z.input<typeof NodeBody>
export type EdgeInput = z.input<typeof EdgeBody>
export type RememberInput = z.input<typeof RememberBody>
export type RecallInput = z.input<typeof RecallBody>
export type ForgetInput = z.input<typeof ForgetBody>
export type FoldOptions = Omit<z.output<typeof FoldQuery>, 'scope'>
export type NeighbourOptions = Omit<z.output<typeof NeighbourQuery>, 'scope'>
export type PathOptions = Omit<z.output<typeof PathQuery>, 'scope'>
export type { EdgeView, Forgotten, NodeState, NodeView, Reached, Recalled }
export type GraphEdge = EdgeView
export type PutNodeResult = PutNode
export type LinkResult = Linked
export type { NodeFold }
export type NeighbourPage = Paged<EdgeView>
export type PathPage = Paged<Reached>
export type Remembered = Recalled
/** What a session stream yields: durable events (with `seq`), live deltas, and where replay ended. */
export type SessionFrame = Frame
/** A host tool call the server sends to the socket that offered the tool (docs/host-tools.md). */
export type HostMessage = { type: 'host.call'; call: string; name: string; input: unknown } | { type: 'host.cancel'; call: string; reason: string }
/** An offerable host tool. */
export interface HostTool {
  name: string
  description: string
  inputSchema: unknown
}
/** The answer to a `host.offer`. */
export interface HostOffered {
  host: string
  tools: string[]
  refused: { name: string; code: string; message: string }[]
}
/**
 * What a socket yields besides the session's frames: every (re)connect (`open`, after which any
 * host offer must be made again: an offer lives with its socket), host calls and cancels, and a
 * refusal of a host message naming a call.
 */
export type SocketFrame =
  | SessionFrame
  | { kind: 'open' }
  | { kind: 'host'; message: HostMessage }
  | { kind: 'host-error'; error: { code: string; message: string; details?: Record<string, unknown> } }
export interface PromptResult {
  receipt: Receipt
  /** True when the server had already admitted this message id (a retry). */
  duplicate: boolean
}
/**
 * The answer to an interrupt: `interrupted`, the `step` it targeted (null when nothing ran), the
 * control entry's id (`request`), `pending` prompts, a `message`, and `duplicate` for a retry.
 * `interrupted: false` with a `step`: that turn had already ended when the interrupt arrived.
 */
export type InterruptResult = InterruptReply

/** A permission request waiting for the owner's answer; its call is parked until then (docs/approvals.md). */
export type { PendingPermission, PermissionAnswer, AnswerResult as PermissionAnswered } from '../objects/permission/approvals.ts'

export interface FollowOptions {
  /** Yield durable events after this sequence (default 0: from the start). */
  after?: number
  /** Stop following (the iterator then ends). */
  signal?: AbortSignal
  /** Called before each reconnect, with the sequence it resumes after. */
  onReconnect?: (after: number, cause: unknown) => void
}

export type AppPackageInput = z.input<typeof AppPackage>
export type VetkeyInput = z.input<typeof VetkeyRequest>
/** `GET /v1/apps/installs/{app}`: the installed version and its interface. */
export type InstalledApp = Omit<InstalledVersion, 'module' | 'person'>
export type { ConnectionInfo, EncryptedKey, Grant, InstallInfo, StoredPackage }
/** The body of `POST /v1/modules` (docs/extending.md#uploaded-tool-modules). */
export type ModuleUploadInput = z.input<typeof ModuleUpload>
export type { ModuleVersion, StoredModule }
