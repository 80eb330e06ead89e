/**
 * What an orchestration and its agent sessions both speak, kept apart from either side so that
 * neither imports the other: the names of the inputs that reach an orchestration (an agent's
 * declare, report, plan, burn and failure; a cancel; a dead letter) and the principal an
 * orchestration acts as. The bridge that carries the drafts is `bridge.ts`, beside this file.
 *
 * @example
 * draft(INPUT.report, { result }) // sent by the agent, folded by the orchestration
 * orchestrationPrincipal('o1')    // 'orchestration:o1'
 */

/** Inputs, on the orchestration's control and agent addresses. */
export const INPUT = {
  cancel: 'orchestration.control.cancel',
  plan: 'orchestration.agent.plan',
  declare: 'orchestration.agent.declare',
  report: 'orchestration.agent.report',
  burn: 'orchestration.agent.burn',
  failed: 'orchestration.agent.failed',
  dead: 'orchestration.dead-letter',
} as const

/**
 * The principal an orchestration acts as: on its own decisions, and on the prompts it sends its agents.
 *
 * @example
 * orchestrationPrincipal('o1') // 'orchestration:o1'
 */
export function orchestrationPrincipal(id: string): string {
  return `orchestration:${id}`
}
