/**
 * What an orchestration does with an agent's input (the bridge's drafts on
 * `orchestration.{id}.agent.{token}`): a declaration, a report, a failure, a step's burn, or the
 * planner's plan. The draft's cause is checked first (cause.ts): an input from a turn that anyone
 * but this orchestration and its owner prompted is refused and nothing is written. Otherwise it is
 * appended (content-addressed, so a redelivery is a `duplicate` and changes nothing) and the
 * decision it causes is recorded in the same synchronous step, naming it as `source` and its
 * principal as a header.
 *
 * The orchestration object hands this module a port (`InputHost`) with exactly what it needs.
 *
 * @example
 * const { duplicate, answer } = receiveInput(host, draft) // answer: the package's beat, { accepted }, or a refusal
 */
import { NeuronError } from '../core/errors.ts'
import type { Stored } from '../ledger/envelope.ts'
import type { Header } from '../ledger/headers.ts'
import type { Json } from '../ledger/json.ts'
import type { Appended } from '../ledger/ledger.ts'
import { parseOrThrow } from '../core/validate.ts'
import type { BridgeDraft } from '../agent-link/bridge.ts'
import { agentCause, causeHeaders } from './cause.ts'
import { INPUT, ORCH, type OrchEvent, type OrchPayloads } from './events.ts'
import { packageOfAgent, packageOfPrompts, promptsOf } from './fanout.ts'
import { checkPlan, PlanSchema } from './plan.ts'
import { answerOf } from './schedule.ts'
import { BurnInput, DeclareInput, FailedInput, ReportInput } from './schemas.ts'
import type { OrchState } from './state.ts'

/** The name the planner's burn is booked under (it is no package: it counts toward the whole). */
export const PLANNER = '(planner)'

/** What applying agents' inputs needs of the orchestration object. */
export interface InputHost {
  /** The orchestration's id. */
  readonly name: string
  state(): OrchState
  append(draft: BridgeDraft): Appended
  record<T extends OrchEvent>(type: T, payload: OrchPayloads[T], headers: Header[]): Stored
  /** Goes on deciding (bounded per turn). */
  advance(): void
  /** RECOVER for the package: retried while attempts remain, else failed. */
  fail(pkg: string, reason: string, headers: Header[], source: string): void
  /** Checks the caps after a burn; crossing one cancels. */
  enforceBudgets(pkg: string | null, headers: Header[]): void
}

type Answer = { duplicate: boolean; answer: Json }

/** Applies one agent input at most once; an input no turn of this orchestration may carry is refused unwritten. */
export function receiveInput(host: InputHost, input: BridgeDraft): Answer {
  const state = host.state()
  const token = tokenOf(host.name, input.topic)
  if (!state.exists) return refused('ORCHESTRATION_NOT_FOUND', `no orchestration ${host.name}`)
  const cause = agentCause((input.payload as { by?: unknown } | null)?.by, host.name, state.owner)
  if ('refused' in cause) return refused('AGENT_INPUT_REFUSED', cause.refused)
  const headers = causeHeaders(cause)
  const { envelope, duplicate } = host.append(input)
  if (token === state.planner?.token) return receivePlan(host, envelope, duplicate, headers)
  const prompts = promptsOf(envelope.payload)
  const pkg = packageOfAgent(state, token, prompts)
  if (!duplicate && envelope.type === INPUT.burn) return receiveBurn(host, envelope, token, prompts, headers)
  if (duplicate) return { duplicate: true, answer: answerOf(state, pkg?.id) }
  if (!pkg) return { duplicate: false, answer: { accepted: false, reason: 'this agent has no package (it was replaced or never assigned)' } }
  const source = envelope.id
  const payload = envelope.payload
  switch (envelope.type) {
    case INPUT.declare: {
      if (pkg.beat !== 'assigned') return { duplicate: false, answer: { accepted: false, reason: `package ${pkg.id} is ${pkg.beat}` } }
      const declaration = parseOrThrow(DeclareInput, payload, 'INVALID_DECLARATION')
      host.record(ORCH.declared, { package: pkg.id, token, declaration, source }, headers)
      host.advance()
      return { duplicate: false, answer: answerOf(host.state(), pkg.id) }
    }
    case INPUT.report: {
      if (pkg.beat !== 'executing') return { duplicate: false, answer: { accepted: false, reason: `package ${pkg.id} is ${pkg.beat}` } }
      const report = parseOrThrow(ReportInput, payload, 'INVALID_REPORT')
      host.record(ORCH.reported, { package: pkg.id, token, result: report.result as Json, artifacts: report.artifacts, source }, headers)
      host.advance()
      return { duplicate: false, answer: { accepted: true } }
    }
    case INPUT.failed: {
      const failure = parseOrThrow(FailedInput, payload, 'INVALID_FAILURE')
      if (pkg.beat === 'reported' || pkg.beat === 'failed' || pkg.beat === 'cancelled' || pkg.beat === 'blocked') return { duplicate: false, answer: { accepted: false, reason: `package ${pkg.id} is ${pkg.beat}` } }
      host.fail(pkg.id, `agent failed: ${failure.reason}`, headers, source)
      host.advance()
      return { duplicate: false, answer: { accepted: true } }
    }
    default:
      throw new NeuronError('UNKNOWN_INPUT', `an agent cannot send ${envelope.type}`, { status: 400, details: { type: envelope.type } })
  }
}

/**
 * Burn counts for the package the step's prompt named (an inline agent works on several), else
 * the last the token worked on: a replaced agent's last steps were spent too.
 */
function receiveBurn(host: InputHost, envelope: Stored, token: string, prompts: string[], headers: Header[]): Answer {
  const pkgId = packageOfPrompts(token, prompts) ?? host.state().tokens.get(token)
  if (pkgId === undefined) return { duplicate: false, answer: { accepted: false, reason: 'unknown agent' } }
  const burn = parseOrThrow(BurnInput, envelope.payload, 'INVALID_BURN')
  host.record(ORCH.burned, { package: pkgId, token, step: burn.step, tokens: burn.tokens, cost: burn.cost, source: envelope.id }, headers)
  host.enforceBudgets(pkgId, headers)
  return { duplicate: false, answer: { accepted: true } }
}

/** The planner's `plan` call: a valid DAG is recorded and scheduled; an invalid one is answered so the model can fix it. */
function receivePlan(host: InputHost, envelope: Stored, duplicate: boolean, headers: Header[]): Answer {
  const state = host.state()
  if (duplicate) return { duplicate: true, answer: { planned: state.planned } }
  if (envelope.type === INPUT.burn) {
    const burn = parseOrThrow(BurnInput, envelope.payload, 'INVALID_BURN')
    host.record(ORCH.burned, { package: PLANNER, token: state.planner!.token, step: burn.step, tokens: burn.tokens, cost: burn.cost, source: envelope.id }, headers)
    host.enforceBudgets(null, headers)
    return { duplicate: false, answer: { accepted: true } }
  }
  if (state.planned || state.status !== 'running') return { duplicate: false, answer: { accepted: false, reason: `the orchestration is ${state.planned ? 'planned' : state.status}` } }
  if (envelope.type === INPUT.failed) {
    host.record(ORCH.finished, { status: 'failed', reason: 'the planning turn failed' }, headers)
    return { duplicate: false, answer: { accepted: true } }
  }
  if (envelope.type !== INPUT.plan) return { duplicate: false, answer: { accepted: false, reason: 'the planner only sends a plan' } }
  const parsed = PlanSchema.safeParse((envelope.payload as { packages?: unknown } | null)?.packages)
  if (!parsed.success) return { duplicate: false, answer: { accepted: false, error: { code: 'INVALID_PLAN', message: parsed.error.issues.map((i) => `${i.path.join('.')}: ${i.message}`).join('; ') } } }
  try {
    checkPlan(parsed.data)
  } catch (error) {
    const e = error as NeuronError
    return { duplicate: false, answer: { accepted: false, error: { code: e.code, message: e.message, details: e.details as Json } } }
  }
  host.record(ORCH.planned, { plan: parsed.data, source: envelope.id }, headers)
  host.advance()
  return { duplicate: false, answer: { accepted: true, packages: parsed.data.length } }
}

/** A refusal the agent's tool call shows with its code; nothing was written. */
function refused(code: string, message: string): Answer {
  return { duplicate: false, answer: { accepted: false, error: { code, message } } }
}

function tokenOf(id: string, topic: string): string {
  const prefix = `orchestration.${id}.agent.`
  const token = topic.startsWith(prefix) ? topic.slice(prefix.length) : ''
  if (!/^[A-Za-z0-9_:-]+$/.test(token)) throw new NeuronError('INVALID_ADDRESS', `${topic} is not an agent address of orchestration.${id}`, { status: 400 })
  return token
}
