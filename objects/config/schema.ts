/**
 * The config document: one per principal, validated by this zod schema, which
 * also generates the JSON Schema served at `/v1/config/schema.json`. Keys:
 * - `instructions`: ambient context for every session, inline text or a URL the worker fetches
 * - `skills`: discovery sources; a skill is a name, a description and a body (or a URL)
 * - `references`: named URLs a client may show or load
 * - `mcpServers`: remote MCP servers whose tools sessions are offered (objects/tools/mcp/);
 *   their headers (bearer tokens) are sealed apart, never part of this document
 * - `permission`: which tool calls are allowed, asked of the owner, or denied (objects/permission/)
 * - `agents`: named agent profiles (model, instructions, tools, permission, skills, step limit),
 *   over the deployment's and Neuron's own of the same name (objects/agents/)
 * - `shell`, `autoupdate`: accepted and stored for terminal clients; the server does not read them
 * Unknown keys are refused, naming the key.
 */
import { z } from 'zod'
import { PermissionSection } from '../permission/policy.ts'
import { McpServers } from '../tools/mcp/servers.ts'
import { AgentsSection } from '../agents/profile.ts'
import { InlineSkill } from './skill-schema.ts'

/** Where the document's JSON Schema is served. */
export const CONFIG_SCHEMA_URL = '/v1/config/schema.json'

const Url = z.url({ protocol: /^https?$/ }).max(2048)

export const ConfigSchema = z.strictObject({
  /** Read-only: the schema the document follows. Echoed back, never stored differently. */
  $schema: z.string().max(2048).optional(),
  instructions: z.array(z.union([z.string().min(1).max(64 * 1024), z.strictObject({ url: Url })])).max(32).optional(),
  skills: z
    .array(
      z.union([
        InlineSkill,
        z.strictObject({ url: Url }),
      ]),
    )
    .max(64)
    .optional(),
  references: z.array(z.strictObject({ name: z.string().min(1).max(256), url: Url })).max(64).optional(),
  mcpServers: McpServers.optional(),
  /** The permission policy's rules and the ask timeout (objects/permission/policy.ts). */
  permission: PermissionSection.optional(),
  /** Agent profiles by name; a session created with `agent` runs one (objects/agents/profile.ts). */
  agents: AgentsSection.optional(),
  /** Client-side only (a terminal client's settings). */
  shell: z.record(z.string(), z.unknown()).optional(),
  /** Client-side only. */
  autoupdate: z.boolean().optional(),
})

export type ConfigDocument = z.output<typeof ConfigSchema>

/** The JSON Schema of the config document, generated from the schema that validates it. */
export function configJsonSchema(): Record<string, unknown> {
  return { ...z.toJSONSchema(ConfigSchema, { target: 'draft-2020-12', io: 'input' }), $id: CONFIG_SCHEMA_URL, title: 'Neuron config document' }
}
