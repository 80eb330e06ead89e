/**
 * The schema of an inline skill (a name, a description and a body), in its own file because two
 * documents hold skills: the config document (objects/config/schema.ts) and an agent profile
 * (objects/agents/profile.ts), which the config document holds in turn.
 */
import { z } from 'zod'

/** A skill's name: what the `skill` tool is called with. */
export const SkillName = z.string().regex(/^[a-z0-9][a-z0-9_-]{0,63}$/)

/**
 * A skill given inline.
 *
 * @example
 * InlineSkill.parse({ name: 'deploy', description: 'How we deploy', body: 'Run npm run deploy.' })
 */
export const InlineSkill = z.strictObject({ name: SkillName, description: z.string().min(1).max(1024), body: z.string().min(1).max(64 * 1024) })
