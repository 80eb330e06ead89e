/**
 * What the orchestration tells an agent, beat by beat. The first line names the
 * beat (`beat: declare`, `beat: execute`): a model reads it as context, and the
 * local model obeys `/beat NAME …` command lines only under the beat they name,
 * so one package's instructions can script both beats offline.
 */
/** The planning turn: one `plan` tool call with the packages and their `needs` edges. */
export function planPrompt(goal: string): string {
  return [
    'beat: plan',
    'Split the goal below into work packages for separate agents. Answer with one `plan` tool call:',
    '{ "packages": [{ "id", "needs": [ids it waits for], "instructions" }] }. The packages and their',
    'needs must form a DAG. Small steps that share files belong in one package. A package may add',
    '"expect": { "ms": its expected wall time }: small ones then run inline in one shared agent.',
    'Goal:',
    goal,
  ].join('\n')
}

export function declarePrompt(goal: string, pkg: string, instructions: string): string {
  return [
    'beat: declare',
    `You are the agent for work package "${pkg}" of the orchestration whose goal is: ${goal}`,
    'Your first act is one `declare` tool call naming the resources you will read and write',
    '(free-form keys such as file:src/a.ts or doc:roadmap). Do not start the work yet.',
    'Instructions:',
    instructions,
  ].join('\n')
}

export function executePrompt(pkg: string, instructions: string): string {
  return [
    'beat: execute',
    `Clearance granted for work package "${pkg}". Do the work now, then end with one \`report\` tool call`,
    '(result, and the artifacts you produced).',
    'Instructions:',
    instructions,
  ].join('\n')
}
