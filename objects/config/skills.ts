/**
 * Skills from the config document: a skill is a name, a description and a
 * body. The model sees the index (names and descriptions) as the
 * `skills.index` context source and loads one body with the `skill` tool, so
 * a long body costs context only when the model asks for it. Skills given by
 * URL are fetched as JSON `{ name, description, body }` through the outbound
 * fetch (objects/outbound: the URL policy on every hop, a bounded body) and
 * cached like instructions; a skill's JSON over `MAX_SKILL_URL_BYTES` is refused
 * with `URL_BODY_TOO_LARGE` and the rest of it is never read.
 */
import { z } from 'zod'
import { NeuronError } from '../core/errors.ts'
import type { JsonObject } from '../ledger/json.ts'
import { Tool } from '../tools/tool.ts'
import { MAX_CONFIG_URL_RESPONSE_BYTES, MAX_SKILL_URL_BYTES } from '../core/limits.ts'
import { outboundFetch, readText } from '../outbound/fetch.ts'
import type { OutboundPolicy } from '../outbound/policy.ts'
import { URL_TIMEOUT_MS, URL_TTL_MS } from './instructions.ts'

export interface Skill {
  name: string
  description: string
  body: string
}

const SkillJson = z.object({ name: z.string().min(1).max(64), description: z.string().min(1).max(1024), body: z.string().min(1).max(64 * 1024) })
const cache = new Map<string, { skill: Skill; at: number }>()

/**
 * The document's skills, URL entries fetched (and cached); `network` is the fetch the outbound
 * fetch sends with (tests pass a fake).
 *
 * @example
 * (await skillsOf({ skills: [{ name: 'deploy', description: 'How we deploy', body: '…' }] }, { development: false }))[0]!.name // 'deploy'
 */
export async function skillsOf(document: JsonObject, policy: OutboundPolicy, now = Date.now(), network: typeof fetch = fetch): Promise<Skill[]> {
  const get = outboundFetch(policy, { refused: 'URL_REFUSED', tooLarge: 'URL_BODY_TOO_LARGE', maxBytes: MAX_CONFIG_URL_RESPONSE_BYTES }, network)
  const skills: Skill[] = []
  for (const entry of (document.skills ?? []) as (Skill | { url: string })[]) {
    if (!('url' in entry)) {
      skills.push(entry)
      continue
    }
    const cached = cache.get(entry.url)
    if (cached && now - cached.at < URL_TTL_MS) {
      skills.push(cached.skill)
      continue
    }
    const response = await get(entry.url, { signal: AbortSignal.timeout(URL_TIMEOUT_MS) })
    if (!response.ok) {
      await response.body?.cancel()
      throw new Error(`skill ${entry.url} answered ${response.status}`)
    }
    const { text, cut } = await readText(response, MAX_SKILL_URL_BYTES)
    if (cut) throw new NeuronError('URL_BODY_TOO_LARGE', `skill ${entry.url.slice(0, 200)} is larger than ${MAX_SKILL_URL_BYTES} bytes`, { status: 502, details: { url: entry.url.slice(0, 2048), limit: MAX_SKILL_URL_BYTES } })
    const skill = SkillJson.parse(JSON.parse(text))
    cache.set(entry.url, { skill, at: now })
    skills.push(skill)
  }
  return skills
}

/** The index the model sees: one line per skill, or null when there are none. */
export function skillIndex(skills: Skill[]): string | null {
  return skills.length === 0 ? null : skills.map((skill) => `${skill.name}: ${skill.description} (load it with the skill tool)`).join('\n')
}

/**
 * The `skill` tool over a loader of the session owner's skills.
 *
 * @example
 * tools.register('skill', skillTool(() => skillsOf(document, policy)))
 */
export function skillTool(load: () => Promise<Skill[]>) {
  return Tool.make({
    description: 'Load the full instructions of one skill listed in the skills index, by its name.',
    input: z.object({ name: z.string().min(1).max(64) }),
    output: z.object({ name: z.string(), body: z.string() }),
    execute: async ({ name }) => {
      const skills = await load()
      const skill = skills.find((candidate) => candidate.name === name)
      if (!skill) throw new NeuronError('SKILL_NOT_FOUND', `no skill named ${name}; the index lists ${skills.map((s) => s.name).join(', ') || 'none'}`, { details: { name } })
      return { name, body: skill.body }
    },
    toModelOutput: ({ name, body }) => `Skill ${name}:\n${body}`,
  })
}
