/**
 * Webhooks in (docs/schedules.md#webhooks-in): an outside sender's delivery becomes a prompt to a
 * session. A hook belongs to a session; its owner creates it and is shown its secret once; the
 * secret is kept sealed (objects/config/credentials.ts, bound to the owner and the hook) in the
 * hook's `hook.created` event on `session.{id}.hooks`. A delivery is signed with HMAC-SHA256 over
 * `{timestamp}.{delivery id}.{body}`; the session opens the secret, checks the signature in
 * constant time and the timestamp against a bounded window, checks the body is bounded JSON, and
 * admits the template with the body in its place under the message id `hook:{name}:{delivery id}`,
 * so the sender's retry of one delivery is one prompt. An unsigned, badly signed, stale or replayed
 * delivery is refused 401 with its code before anything is written.
 *
 * A delivery's prompt is admitted as the hook's (`hook:{session}~{name}`), not as the owner's: its
 * turn never acts for the owner (authority.ts), so outside content reaches none of the owner's
 * credentials, devices or memory.
 *
 * @example
 * const { hook, secret } = await hooks.create(caller, { name: 'ci', template: 'The build said: {{body}}' })
 * await hooks.receive('ci', { timestamp, delivery, signature }, body) // { receipt, duplicate }
 */
import type { Caller } from '../../access/authorize.ts'
import { openKey, sealKey, type SealedKey, toBase64 } from '../../config/credentials.ts'
import { NeuronError } from '../../core/errors.ts'
import { HOOK_LIMITS } from '../../core/limits.ts'
import { parseJson } from '../../core/parse-json.ts'
import { parseOrThrow } from '../../core/validate.ts'
import { CreateHookSchema, type DeliveryHeaders, type Hook } from './schema.ts'
import { TopicFold } from '../../core/journal.ts'
import { Chain } from '../../ledger/chain.ts'
import type { Header } from '../../ledger/headers.ts'
import type { Receipt } from '../intake/admission.ts'
import { admitPrompt, type IntakeHost } from '../intake/intake.ts'

type Stored = Omit<Hook, 'id'> & { sealed: SealedKey }

/** What hooks use of the session. */
export interface HooksHost extends IntakeHost {
  readonly topic: string
  readonly ledger: ConstructorParameters<typeof Chain>[0]
  /** The deployment secret sealed values are keyed by. */
  readonly secret: string | undefined
  check(caller: Caller, action: 'read' | 'prompt'): void
  now(): number
}

const encoder = new TextEncoder()

/** The id deliveries to session `session`'s hook `name` are posted to. */
export function hookId(session: string, name: string): string {
  return `${session}~${name}`
}

export class SessionHooks {
  private readonly chain: Chain
  private readonly fold: TopicFold<Record<string, Stored>>

  constructor(private readonly host: HooksHost) {
    this.chain = new Chain(host.ledger, `${host.topic}.hooks`)
    this.fold = new TopicFold(host.ledger, this.chain.topic, (state, envelope) => {
      const p = envelope.payload as unknown as Stored
      return envelope.type === 'hook.created' ? { ...state, [p.name]: p } : state
    }, () => ({}))
  }

  /** The session's hooks (their secrets never). */
  list(caller: Caller): { items: Hook[] } {
    this.host.check(caller, 'read')
    return { items: Object.values(this.fold.current()).map((h) => this.shown(h)) }
  }

  /** Creates a hook; its secret is in this answer only. The owner only (`HOOK_OWNER_ONLY`); a name taken: `HOOK_EXISTS`. */
  async create(caller: Caller, input: unknown): Promise<{ hook: Hook; secret: string }> {
    this.host.check(caller, 'read')
    if (caller.id !== this.host.state().owner) throw new NeuronError('HOOK_OWNER_ONLY', "only the session's owner creates its hooks", { status: 403 })
    const { name, template, delivery } = parseOrThrow(CreateHookSchema, input, 'INVALID_HOOK')
    const hooks = this.fold.current()
    if (hooks[name]) throw new NeuronError('HOOK_EXISTS', `session ${this.host.name} has a hook ${name}`, { status: 409, details: { name } })
    if (Object.keys(hooks).length >= HOOK_LIMITS.perSession) {
      throw new NeuronError('HOOK_LIMIT', `session ${this.host.name} has ${HOOK_LIMITS.perSession} hooks, the most it may hold`, { status: 429, details: { limit: HOOK_LIMITS.perSession } })
    }
    const secret = `whsec_${toBase64(crypto.getRandomValues(new Uint8Array(32))).replace(/[+/=]/g, '')}`
    const sealed = await sealKey(this.host.secret, caller.id, `hook:${name}`, secret)
    // Checked again after the await: a create of the same name may have landed meanwhile.
    if (this.fold.current()[name]) throw new NeuronError('HOOK_EXISTS', `session ${this.host.name} has a hook ${name}`, { status: 409, details: { name } })
    const stored: Stored = { name, template, delivery, by: caller.id, sealed }
    this.chain.append('hook.created', caller.id, stored)
    return { hook: this.shown(stored), secret }
  }

  /** Verifies and admits one delivery; refusals write nothing (see the header). */
  async receive(name: string, headers: DeliveryHeaders, body: string): Promise<{ receipt: Receipt; duplicate: boolean }> {
    const hook = this.fold.current()[name]
    const { timestamp, delivery, signature } = headers
    if (!timestamp || !delivery || !signature) throw refused('HOOK_UNSIGNED', 'a delivery carries x-neuron-timestamp, x-neuron-delivery and x-neuron-signature')
    if (!/^[A-Za-z0-9_:-]{1,64}$/.test(delivery)) throw refused('HOOK_SIGNATURE', 'x-neuron-delivery must be 1–64 of [A-Za-z0-9_:-]')
    const secret = hook ? await openKey(this.host.secret, hook.by, `hook:${name}`, hook.sealed) : null
    const expected = secret ? await sign(secret, timestamp, delivery, body) : null
    if (!expected || !equal(signature, `sha256=${expected}`)) throw refused('HOOK_SIGNATURE', 'the signature does not match this hook')
    const seconds = Number(timestamp)
    if (!Number.isInteger(seconds) || Math.abs(this.host.now() / 1000 - seconds) > HOOK_LIMITS.windowSeconds) {
      throw refused('HOOK_STALE', `x-neuron-timestamp must be within ${HOOK_LIMITS.windowSeconds} s of now`)
    }
    const value = parseJson(body, { what: 'the delivery body' })
    const text = hook!.template.split('{{body}}').join(JSON.stringify(value, null, 2))
    const admission = { id: `hook:${name}:${delivery}`, text, delivery: hook!.delivery }
    try {
      // The sender's retry of a delivery is answered with its first receipt; another body under its id is a replay.
      return admitPrompt(this.host, admission, hookHeaders(`hook:${hookId(this.host.name, name)}`))
    } catch (error) {
      if (error instanceof NeuronError && error.code === 'PROMPT_CONFLICT') throw refused('HOOK_REPLAYED', `delivery ${delivery} was received with another body`)
      throw error
    }
  }

  private shown(hook: Stored): Hook {
    return { name: hook.name, id: hookId(this.host.name, hook.name), template: hook.template, delivery: hook.delivery, by: hook.by }
  }
}

/** The gate headers of a delivery's prompt: the hook is its principal, with no claims. */
function hookHeaders(principal: string): Header[] {
  return [
    { key: 'principal', value: principal },
    { key: 'claims', value: [] },
    { key: 'authz', value: { stage: 'hook', decision: 'allow', rule: 'signature', claims: [] } },
  ]
}

/**
 * The signature a sender sends as `x-neuron-signature: sha256={hex}`.
 *
 * @example
 * await sign('whsec_…', '1796226083', 'd-1', '{"ok":true}') // '3f0c…'
 */
export async function sign(secret: string, timestamp: string, delivery: string, body: string): Promise<string> {
  const key = await crypto.subtle.importKey('raw', encoder.encode(secret), { name: 'HMAC', hash: 'SHA-256' }, false, ['sign'])
  const mac = new Uint8Array(await crypto.subtle.sign('HMAC', key, encoder.encode(`${timestamp}.${delivery}.${body}`)))
  return [...mac].map((b) => b.toString(16).padStart(2, '0')).join('')
}

/** Compares in time that depends on the lengths only. */
function equal(a: string, b: string): boolean {
  const x = encoder.encode(a)
  const y = encoder.encode(b)
  let diff = x.length ^ y.length
  for (let i = 0; i < Math.max(x.length, y.length); i++) diff |= (x[i] ?? 0) ^ (y[i] ?? 0)
  return diff === 0
}

function refused(code: string, message: string): NeuronError {
  return new NeuronError(code, message, { status: 401 })
}
