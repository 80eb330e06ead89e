/**
 * What a package's agent session and its orchestration speak about the orchestration's shared
 * workspace (docs/workspace.md#a-packages-workspace): the calls the session's work tools make over
 * RPC (`packageWorkspace` on the OrchestrationObject) and what each answers. Each names the turn it
 * comes from (its prompt ids and their principals), which is how the orchestration authorizes it.
 */
import { z } from 'zod'
import { MAX_PAGE, PACKAGE_WORKSPACE_CALL } from '../core/limits.ts'
import type { Committed, Listing } from '../workspace/store.ts'
import type { FileEntry } from '../workspace/tree.ts'

const Path = z.string().min(1).max(2048)

/** The turn a package's call comes from: its prompt ids and their principals (agent.ts `AgentTurn`). */
const Turn = { prompts: z.array(z.string().max(256)).max(16).default([]), principals: z.array(z.string().max(256)).max(16).default([]) }

/** What a package's session asks of the shared workspace (objects/session/agent/shared-workspace.ts). */
export const PackageWorkspaceCall = z.discriminatedUnion('op', [
  z.object({ op: z.literal('mode') }),
  z.object({ op: z.literal('entry'), path: Path, ...Turn }),
  z.object({ op: z.literal('list'), dir: z.string().max(2048), after: z.string().max(2048).optional(), limit: z.number().int().min(1).max(MAX_PAGE).optional(), ...Turn }),
  z.object({ op: z.literal('read'), paths: z.array(Path).max(PACKAGE_WORKSPACE_CALL.readPaths), ...Turn }),
  z.object({
    op: z.literal('commit'),
    writes: z.array(z.object({ path: Path, bytes: z.custom<Uint8Array>((value) => value instanceof Uint8Array, 'bytes').nullable() })).max(PACKAGE_WORKSPACE_CALL.writes),
    by: z.string().min(1).max(256),
    ...Turn,
  }),
])
export type PackageWorkspaceCall = z.input<typeof PackageWorkspaceCall>

/** What each call answers: the mode, an entry, a page, the files read (`[path, bytes | null]`), or what a commit did. */
export type PackageWorkspaceAnswer = 'own' | 'shared' | FileEntry | null | Listing | [string, Uint8Array | null][] | Committed
