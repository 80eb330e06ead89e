/**
 * Giving the thread back. workerd runs the continuation of a promise, and a call one Durable
 * Object makes into another in the same process, ahead of anything that arrived since: a
 * request, a socket message, an alarm. So objects that call each other in a chain with no I/O
 * between them hold every other request back until the chain ends, and many objects share one
 * isolate (all of them under `wrangler dev`). A timer goes to the back of the queue.
 *
 * Measured under `wrangler dev` on two shared cores: a 200-package orchestration on the local
 * model (it and its agents calling each other over the bridge) kept its own create and another
 * principal's reads waiting 143 s, the whole run, until the bridge began each delivery on a
 * later turn (test/process/orchestration-load.test.ts; docs/orchestration.md, "Sharing the thread").
 *
 * @example
 * await laterTurn() // whatever arrived meanwhile runs first
 */
export function laterTurn(): Promise<void> {
  return new Promise<void>((resolve) => setTimeout(resolve, 0))
}
