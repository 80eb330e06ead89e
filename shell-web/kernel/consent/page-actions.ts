/**
 * Private actions the trusted page performs for a frame: the tray badge, closing one's own tray
 * popover, writing the clipboard, and an injected EIP-1193 wallet. Like every private action they
 * are not tools (no discovery, no routing, no model-visible audit) and name no app: each acts
 * for the sender's own app, derived from its port.
 *
 * - `tray.set_state` — the app's current background (an app that declares a tray); `{ badge }`,
 *   an integer 0–9999 or null.
 * - `tray.dismiss` — the live tray endpoint; `{}`; closes its own popover.
 * - `clipboard.write_text` — the tile the person is clicking or typing in (gesture.ts); `{ text }` ≤ 256 KiB.
 * - `ethereum_provider.connect` / `.request` / `.disconnect` — the tile the person is clicking or
 *   typing in; the page asks the injected provider and answers with a session id (bound to that
 *   tile session: a reload or an upgrade ends it) and bounded JSON metadata, never the provider;
 *   without one, UNAVAILABLE.
 *
 * @example
 * const actions = createPageActions({ endpoints, manifest, frameOf, setBadge, closeTray, gestures })
 * for (const [name, action] of actions) privateActions.set(name, action)
 */
import type { Outcome } from '../bus/calls.ts'
import type { Endpoint, Endpoints } from '../bus/endpoints.ts'
import type { FrameRecord } from '../bus/frames.ts'
import type { Gestures } from './gesture.ts'
import type { AppManifest } from '../installs/manifest.ts'
import type { PrivateAction } from './private-actions.ts'
import { fail } from '../../protocol/codes.ts'
import { hasExactKeys, isRecord } from '../../protocol/envelope.ts'
import { checkJson } from '../../protocol/json-compat.ts'
import { LIMITS } from '../../protocol/limits.ts'

/** The EIP-1193 surface the page uses; nothing of it ever leaves the page. */
export interface Eip1193Provider {
  request(args: { method: string; params?: unknown[] | object }): Promise<unknown>
}

export interface PageActionDeps {
  endpoints: Endpoints
  manifest(app: string): AppManifest | undefined
  /** The frame an endpoint is bound to. */
  frameOf(ep: Endpoint): FrameRecord | undefined
  setBadge(app: string, badge: number | null): void
  closeTray(frame: FrameRecord): void
  /** Is the person using this tile right now (see gesture.ts). */
  gestures: Pick<Gestures, 'check'>
  /** Platform facts, replaceable in tests of the page itself. */
  writeText?(text: string): Promise<void>
  provider?(): Eip1193Provider | undefined
}

/** Wallet methods a tile may ask for; anything else (adding chains, permissions…) is refused. */
const WALLET_METHODS = new Set(['eth_accounts', 'eth_chainId', 'eth_blockNumber', 'eth_getBalance', 'eth_call', 'eth_estimateGas', 'personal_sign', 'eth_signTypedData_v4', 'eth_sendTransaction', 'wallet_switchEthereumChain'])

export function createPageActions(deps: PageActionDeps): Map<string, PrivateAction> {
  const writeText = deps.writeText ?? ((text: string) => navigator.clipboard.writeText(text))
  const provider = deps.provider ?? (() => (globalThis as { ethereum?: Eip1193Provider }).ethereum)
  /** Wallet sessions, each bound to the tile session that connected it (a reload or an upgrade ends it). */
  const wallets = new Map<string, Endpoint>()

  /** A refusal unless the person is using this very tile right now. */
  const gesture = async (ep: Endpoint): Promise<Outcome | null> => {
    const decision = await deps.gestures.check(ep)
    return decision.allow ? null : { error: fail(decision.code, decision.message) }
  }
  const current = (ep: Endpoint) => deps.endpoints.get(ep.id) === ep

  const setState: PrivateAction = {
    rule: 'background-only',
    run(ep, p) {
      if (!current(ep)) return { error: fail('PERMISSION_DENIED', 'only the current background of the app') }
      if (!deps.manifest(ep.app)?.entries.tray) return { error: fail('PERMISSION_DENIED', `"${ep.app}" declares no tray`) }
      if (!isRecord(p) || !hasExactKeys(p, ['badge'])) return { error: fail('BAD_REQUEST', 'expected exactly { badge }') }
      const { badge } = p
      if (badge !== null && !(Number.isSafeInteger(badge) && (badge as number) >= 0 && (badge as number) <= LIMITS.maxTrayBadge)) {
        return { error: fail('BAD_REQUEST', `badge is an integer 0–${LIMITS.maxTrayBadge}, or null`) }
      }
      deps.setBadge(ep.app, badge as number | null)
      return { ok: { badge } }
    },
  }
  const dismiss: PrivateAction = {
    rule: 'tray-only',
    run(ep, p) {
      if (!isRecord(p) || !hasExactKeys(p, [])) return { error: fail('BAD_REQUEST', 'expected {}') }
      const frame = deps.frameOf(ep)
      if (!frame || frame.endpoint !== ep || !current(ep)) return { error: fail('PERMISSION_DENIED', 'only the live tray endpoint closes its own popover') }
      // Answer first: closing the popover destroys the frame and its port.
      queueMicrotask(() => deps.closeTray(frame))
      return { ok: {} }
    },
  }
  const clipboard: PrivateAction = {
    rule: 'focused-tile',
    needsOwner: true,
    async run(ep, p) {
      const refused = await gesture(ep)
      if (refused) return refused
      if (!isRecord(p) || !hasExactKeys(p, ['text']) || typeof p.text !== 'string') return { error: fail('BAD_REQUEST', 'expected exactly { text }') }
      if (new TextEncoder().encode(p.text).byteLength > LIMITS.maxClipboardBytes) return { error: fail('PAYLOAD_TOO_LARGE', `clipboard text is at most ${LIMITS.maxClipboardBytes} bytes`) }
      try {
        await writeText(p.text)
        return { ok: {} }
      } catch (error) {
        return { error: fail('UNAVAILABLE', `the clipboard refused the write: ${String(error).slice(0, 200)}`) }
      }
    },
  }
  /** Runs `method` on the injected provider; its answer must be bounded JSON. */
  const ask = async (method: string, params?: unknown[]): Promise<{ ok: unknown } | { error: ReturnType<typeof fail> }> => {
    const wallet = provider()
    if (!wallet || typeof wallet.request !== 'function') return { error: fail('UNAVAILABLE', 'no Ethereum provider in this browser') }
    let value: unknown
    try {
      value = await wallet.request(params === undefined ? { method } : { method, params })
    } catch (error) {
      const code = isRecord(error) ? error.code : undefined
      if (code === 4001) return { error: fail('PERMISSION_DENIED', 'the person declined in the wallet') }
      return { error: fail('PROVIDER_ERROR', `${String(code ?? '')} ${isRecord(error) && typeof error.message === 'string' ? error.message : String(error)}`.trim().slice(0, LIMITS.maxErrorMessageChars)) }
    }
    const json = checkJson(value ?? null, LIMITS.maxWalletResultBytes, LIMITS.maxDepth)
    return json.ok ? { ok: value ?? null } : { error: fail('PROVIDER_ERROR', `the provider answered ${json.code}: ${json.reason}`) }
  }
  const connect: PrivateAction = {
    rule: 'focused-tile',
    needsOwner: true,
    async run(ep, p) {
      const refused = await gesture(ep)
      if (refused) return refused
      if (!isRecord(p) || !hasExactKeys(p, [])) return { error: fail('BAD_REQUEST', 'expected {}') }
      for (const [id, owner] of wallets) if (!owner.live) wallets.delete(id)
      if ([...wallets.values()].filter((owner) => owner.app === ep.app).length >= LIMITS.maxWalletSessionsPerApp) return { error: fail('LIMIT_REACHED', `at most ${LIMITS.maxWalletSessionsPerApp} wallet sessions per app`) }
      const accounts = await ask('eth_requestAccounts')
      if ('error' in accounts) return accounts
      const chainId = await ask('eth_chainId')
      if ('error' in chainId) return chainId
      if (!Array.isArray(accounts.ok) || !accounts.ok.every((a) => typeof a === 'string' && a.length <= 66) || typeof chainId.ok !== 'string') {
        return { error: fail('PROVIDER_ERROR', 'the provider answered accounts or chain id of the wrong shape') }
      }
      const session = crypto.randomUUID()
      wallets.set(session, ep)
      return { ok: { session, accounts: accounts.ok.slice(0, 16), chainId: chainId.ok.slice(0, 66) } }
    },
  }
  const sessionOf = (ep: Endpoint, session: unknown) => (typeof session === 'string' && wallets.get(session) === ep ? session : undefined)
  const request: PrivateAction = {
    rule: 'focused-tile',
    needsOwner: true,
    async run(ep, p) {
      const refused = await gesture(ep)
      if (refused) return refused
      if (!isRecord(p) || !hasExactKeys(p, ['session', 'method'], ['params']) || typeof p.method !== 'string' || (p.params !== undefined && !Array.isArray(p.params))) {
        return { error: fail('BAD_REQUEST', 'expected exactly { session, method, params? } with params an array') }
      }
      if (!sessionOf(ep, p.session)) return { error: fail('PERMISSION_DENIED', 'no such wallet session for this tile') }
      if (!WALLET_METHODS.has(p.method)) return { error: fail('BAD_REQUEST', `method ${p.method.slice(0, 64)} is not available to apps`) }
      const answer = await ask(p.method, p.params as unknown[] | undefined)
      return 'error' in answer ? answer : { ok: { result: answer.ok } }
    },
  }
  const disconnect: PrivateAction = {
    rule: 'focused-tile',
    needsOwner: true,
    async run(ep, p) {
      const refused = await gesture(ep)
      if (refused) return refused
      if (!isRecord(p) || !hasExactKeys(p, ['session'])) return { error: fail('BAD_REQUEST', 'expected exactly { session }') }
      if (!sessionOf(ep, p.session)) return { error: fail('PERMISSION_DENIED', 'no such wallet session for this tile') }
      wallets.delete(p.session as string)
      return { ok: {} }
    },
  }
  return new Map([
    ['tray.set_state', setState],
    ['tray.dismiss', dismiss],
    ['clipboard.write_text', clipboard],
    ['ethereum_provider.connect', connect],
    ['ethereum_provider.request', request],
    ['ethereum_provider.disconnect', disconnect],
  ])
}
