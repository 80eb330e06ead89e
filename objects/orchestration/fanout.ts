/**
 * Fan out only when it pays, as a pure decision. Every agent an orchestration
 * starts costs a coordination tax (a fresh session: its creation, its own
 * prompts and inputs, one more Durable Object to wake), measured in the
 * orchestration benchmark. Running a package in its own agent can save at most
 * the package's own work from the serial path; running it inline in a shared
 * agent, after the others queued there, adds at most that much. So a package
 * whose expected work is below the wall-time tax runs inline: it joins the
 * orchestration's one inline agent, which takes its packages one at a time. Each still goes
 * through every beat and is reported and burned on its own.
 */
import { FINAL_BEATS, type OrchState, type PackageState } from './state.ts'

/**
 * The measured coordination tax of one agent, from `bench/node/orchestration.bench.ts` on the
 * local model in `wrangler dev` (docs/benchmarks.md, 2026-11-30). `wallMs`: one package through
 * an orchestration took 244 ms against 175 ms run directly (≈ 70 ms). `rowsPerAgent`: the rows an
 * agent of its own costs over running inline (about 3; the other ~10 rows per package of the
 * orchestration's tax are its beats, which an inline package records too).
 */
export const COORDINATION_TAX = { wallMs: 70, rowsPerAgent: 3 } as const

export type Placement = { inline: true; agent: string | null; reason: string } | { inline: false; reason: string }

/**
 * Where a ready package runs: inline in the open inline agent (`agent`, or a new one when null)
 * or in an agent of its own, with the reason recorded beside the decision.
 *
 * @example
 * placement({ expect: { ms: 5 }, attempts: 0 }, null) // { inline: true, agent: null, reason: 'expected 5 ms < break-even 70 ms …' }
 * placement({ expect: { ms: 900 }, attempts: 0 }, 't1') // { inline: false, reason: 'expected 900 ms ≥ break-even 70 ms …' }
 */
export function placement(pkg: Pick<PackageState, 'expect' | 'attempts'> & { profile?: string | null }, openAgent: string | null, tax: { wallMs: number } = COORDINATION_TAX): Placement {
  // The shared inline agent runs `default`; a package naming a profile runs in a session of that profile.
  if (pkg.profile) return { inline: false, reason: `it names the agent profile ${pkg.profile}: an agent of its own` }
  if (pkg.expect === null) return { inline: false, reason: 'no expected work stated' }
  // RECOVER hands a retried package a fresh agent of its own.
  if (pkg.attempts > 0) return { inline: false, reason: 'a retry gets a fresh agent of its own' }
  if (pkg.expect.ms >= tax.wallMs) return { inline: false, reason: `expected ${pkg.expect.ms} ms ≥ break-even ${tax.wallMs} ms (the coordination tax of an agent): its own agent` }
  return { inline: true, agent: openAgent, reason: `expected ${pkg.expect.ms} ms < break-even ${tax.wallMs} ms (the coordination tax of an agent): inline in one agent` }
}

/**
 * The orchestration's inline agent, or null before the first small package. There is one: a
 * small package joins it even when it is idle (a session that exists costs nothing to reuse),
 * so a chain of small packages runs in one agent too.
 */
export function openInlineAgent(state: OrchState): string | null {
  for (const p of state.packages.values()) if (p.inline !== null) return p.inline.agent
  return null
}

/** Whether an inline agent is working on one of its packages (it takes them one at a time). */
export function inlineAgentBusy(state: OrchState, agent: string): boolean {
  for (const p of state.packages.values()) if (p.agent === agent && !FINAL_BEATS.has(p.beat) && p.beat !== 'waiting') return true
  return false
}

/**
 * The package an agent's input is about: the one its turn's prompt named (an inline agent works
 * on several, one after another), else the one it is working on, else the last it finished.
 * Only packages the agent holds now: a replaced agent is answered as having none.
 *
 * @example
 * packageOfAgent(state, token, ['execute-T.b']) // package b, while T holds it
 */
export function packageOfAgent(state: OrchState, token: string, prompts: readonly string[] = []): PackageState | undefined {
  const named = state.packages.get(packageOfPrompts(token, prompts) ?? '')
  if (named?.agent === token) return named
  let last: PackageState | undefined
  for (const p of state.packages.values()) {
    if (p.agent !== token) continue
    if (!FINAL_BEATS.has(p.beat)) return p
    last = p
  }
  return last
}

/**
 * The message id of a package's prompt to its agent: fixed, so a re-delivery is a duplicate.
 *
 * @example
 * promptId('declare', 'T', 'b') // 'declare-T.b'
 */
export function promptId(beat: 'declare' | 'execute', token: string, pkg: string): string {
  return `${beat}-${token}.${pkg}`
}

/**
 * The package a turn's prompts name, or null. A prompt id embeds the agent's token, and a
 * package's prompts go to its agent only, so this agent did work on that package.
 *
 * @example
 * packageOfPrompts('T', ['execute-T.b']) // 'b'
 */
export function packageOfPrompts(token: string, prompts: readonly string[]): string | null {
  for (const id of prompts) {
    for (const beat of ['declare', 'execute']) if (id.startsWith(`${beat}-${token}.`)) return id.slice(beat.length + token.length + 2)
  }
  return null
}

/**
 * The prompt ids an agent's input names (the turn it was sent from), if any.
 *
 * @example
 * promptsOf({ reads: [], prompts: ['declare-T.b'] }) // ['declare-T.b']
 */
export function promptsOf(payload: unknown): string[] {
  const prompts = (payload as { prompts?: unknown } | null)?.prompts
  return Array.isArray(prompts) ? prompts.filter((id): id is string => typeof id === 'string') : []
}
