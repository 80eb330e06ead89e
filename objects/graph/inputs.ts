/**
 * The graph's request shapes, parsed where they enter (the GraphObject) and
 * documented from the same schemas in the OpenAPI table.
 */
import { z } from 'zod'
import { Paging } from '../delivery/queries.ts'
import { Address, EdgeType, Kind, MAX_PATH_DEPTH, NodeId } from './vocabulary.ts'

const Json = z.json()
const Reason = z.string().min(1).max(1024)

/** `?scope=org:acme`: a shared claim's graph instead of the caller's own. */
export const Scope = z.string().regex(/^[a-z][a-z0-9_-]{0,31}:[A-Za-z0-9_.:-]{1,128}$/, 'must be a claim such as org:acme')
export const ScopeQuery = z.strictObject({ scope: Scope.optional() })

/** `POST /v1/graph/nodes`. Text is what recall searches; its size is checked where it is stored (`TEXT_TOO_LARGE`). */
export const NodeBody = z.strictObject({ kind: Kind, id: NodeId.optional(), text: z.string().optional(), data: Json.optional() })

/** `POST /v1/graph/edges`. */
export const EdgeBody = z.strictObject({
  source: Address,
  target: Address,
  type: EdgeType,
  parent: z.string().regex(/^[0-9a-f]{64}$/).optional(),
  payload: Json.optional(),
  supersedes: z.string().regex(/^[0-9a-f]{64}$/).optional(),
  reason: Reason.optional(),
})

/** `POST /v1/graph/edges/{id}/prune`. */
export const PruneBody = z.strictObject({ reason: Reason })

/** `GET /v1/graph/nodes/{address}/neighbours`. */
export const NeighbourQuery = z.strictObject({ type: EdgeType.optional(), direction: z.enum(['out', 'in']).optional(), scope: Scope.optional(), ...Paging })

/** `GET /v1/graph/nodes/{address}/paths`. */
export const PathQuery = z.strictObject({
  to: Address.optional(),
  types: z.string().regex(/^[a-z][a-z0-9_,-]*$/).optional(),
  direction: z.enum(['out', 'in']).optional(),
  maxDepth: z.coerce.number().int().min(1).max(MAX_PATH_DEPTH).optional(),
  scope: Scope.optional(),
  ...Paging,
})

/** `GET /v1/graph/nodes/{address}` (the fold of its incident edges, paged). */
export const FoldQuery = z.strictObject({ scope: Scope.optional(), ...Paging })

/** `POST /v1/memory/remember`. */
export const RememberBody = z.strictObject({
  text: z.string().min(1),
  regards: z.array(Address).max(16).optional(),
  pinned: z.boolean().optional(),
})

/** `POST /v1/memory/recall`. */
export const RecallBody = z.strictObject({ query: z.string().min(1).max(1024), limit: z.number().int().min(1).max(50).optional() })

/** `POST /v1/memory/forget`: prune, or supersede with a corrected `replacement`. */
export const ForgetBody = z.strictObject({ address: Address, reason: Reason, replacement: z.string().min(1).optional() })
