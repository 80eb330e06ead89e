/**
 * `apps.install_offer { url }`: an app offers the person an app by URL only.
 * The kernel fetches the package itself (http or https, size-capped), shows
 * the person what it is in the trusted page's dialog (name, version, content
 * id, whether it has a backend and which origins it will ask for, and whether
 * it replaces an installed version), and only on the person's Accept uploads
 * and installs it — or upgrades the installed app, which reloads it. A refusal
 * stores nothing. Only the tile the person is clicking may offer (gesture.ts), one dialog
 * at a time; installs are the signed-in person's, so signed out it is refused.
 *
 * Codes: PERMISSION_DENIED (not a tile), USER_ACTIVATION_REQUIRED, SIGN_IN_REQUIRED,
 * OFFER_URL_INVALID, UI_BUSY (+ retryAfterMs), OFFER_FETCH_FAILED, OFFER_TOO_LARGE,
 * OFFER_INVALID, OFFER_REFUSED, CANCELLED (the tile went away or the call ended),
 * INSTALL_FAILED (the server refused it: its code leads the message).
 *
 * @example
 * button.onclick = () => bus.callTool({ target: 'kernel', name: 'apps.install_offer', arguments: { url: 'https://example.com/counter.json' } })
 */
import type { DialogGate } from '../consent/dialog-gate.ts'
import type { Gestures } from '../consent/gesture.ts'
import type { InstallOffers } from './install-offers.ts'
import { type KernelTool, tool } from '../bus/kernel-tools.ts'
import { describePackage } from './package-manifest.ts'
import { type Code, fail } from '../../protocol/codes.ts'
import { LIMITS } from '../../protocol/limits.ts'

/** The signed-in person's installs, as the install offer needs them (ui/person-installs.ts). */
export interface Installer {
  /** The installed version of `app`, if any. */
  installed(app: string): { version: string; hash: string } | undefined
  /** Uploads `pkg` and installs it, or upgrades the installed app to it; the shell then runs it. */
  install(pkg: unknown): Promise<{ app: string; version: string; hash: string; from: string | null }>
}

export interface InstallOfferDeps {
  offers: InstallOffers
  /** Is the person using the offering tile right now (see gesture.ts). */
  gestures: Pick<Gestures, 'check'>
  /** An app whose last dialogs the person dismissed waits before offering again (dialog-gate.ts). */
  gate: DialogGate
  /** The signed-in person's installs; undefined while signed out. */
  installer(): Installer | undefined
}

class Refusal extends Error {
  constructor(
    readonly code: Code,
    message: string,
  ) {
    super(message)
  }
}

export function installOfferTool(deps: InstallOfferDeps): KernelTool {
  return tool<{ url: string }>(
    'apps.install_offer',
    'Offer an app',
    'Offer the person an app package by URL; the person sees what it is and accepts or refuses it.',
    { type: 'object', properties: { url: { type: 'string', minLength: 1, maxLength: 2048 } }, required: ['url'], additionalProperties: false },
    async (caller, { url }, signal) => {
      if (caller.kind !== 'tile') return { error: fail('PERMISSION_DENIED', 'only a tile may offer an install') }
      const gesture = await deps.gestures.check(caller)
      if (!gesture.allow) return { error: fail(gesture.code, gesture.message) }
      const installer = deps.installer()
      if (!installer) return { error: fail('SIGN_IN_REQUIRED', 'installs are the signed-in person\u2019s: sign in first') }
      let target: URL
      try {
        target = offerUrl(url)
      } catch (error) {
        return { error: fail('OFFER_URL_INVALID', (error as Error).message) }
      }
      const slot = deps.offers.reserve(caller.id)
      if (slot === null) return { error: fail('UI_BUSY', 'another install offer is open', LIMITS.uiBusyRetryAfterMs) }
      const abandon = () => deps.offers.release(slot)
      signal.addEventListener('abort', abandon)
      try {
        const pkg = await fetchPackage(target, signal)
        const offer = await describePackage(pkg).catch((error: Error) => {
          throw new Refusal('OFFER_INVALID', error.message)
        })
        // The person dismissed this app's last dialog just now: remembered, refused without another.
        const backingOff = deps.gate.admitChecked(caller.app)
        if (backingOff) return { error: fail('OFFER_REFUSED', backingOff.message, backingOff.retryAfterMs) }
        const answer = await deps.offers.show(slot, { url: target.href, offer, upgradeFrom: installer.installed(offer.app)?.version ?? null })
        if (answer === 'withdrawn') return { error: fail('CANCELLED', 'the offer was withdrawn') }
        deps.gate.answered(caller.app, answer === 'accept')
        if (answer === 'refuse') return { error: fail('OFFER_REFUSED', 'the person refused the install') }
        const done = await installer.install(pkg).catch((error: Error & { code?: string }) => {
          throw new Refusal('INSTALL_FAILED', `${error.code ?? 'ERROR'}: ${error.message}`)
        })
        return { ok: { installed: true, app: done.app, version: done.version, hash: done.hash, upgradedFrom: done.from } }
      } catch (error) {
        if (error instanceof Refusal) return { error: fail(error.code, error.message.slice(0, 500)) }
        throw error
      } finally {
        signal.removeEventListener('abort', abandon)
        deps.offers.release(slot)
      }
    },
    { waitsForPerson: true, needsOwner: true },
  )
}

/** Only http and https, without credentials in the URL. */
function offerUrl(url: string): URL {
  let parsed: URL
  try {
    parsed = new URL(url)
  } catch {
    throw new Error('not an absolute URL')
  }
  if (parsed.protocol !== 'https:' && parsed.protocol !== 'http:') throw new Error(`only http and https URLs, not ${parsed.protocol}`)
  if (parsed.username || parsed.password) throw new Error('a URL with credentials')
  return parsed
}

/** The package at `url`, read up to the package size limit and parsed as JSON. */
async function fetchPackage(url: URL, signal: AbortSignal): Promise<unknown> {
  let res: Response
  try {
    res = await fetch(url, { credentials: 'omit', cache: 'no-store', referrerPolicy: 'no-referrer', signal: AbortSignal.any([signal, AbortSignal.timeout(LIMITS.offerFetchTimeoutMs)]) })
  } catch (error) {
    throw new Refusal('OFFER_FETCH_FAILED', `the package could not be fetched (${(error as Error).name})`)
  }
  if (!res.ok) throw new Refusal('OFFER_FETCH_FAILED', `the package URL answered HTTP ${res.status}`)
  const tooLarge = () => new Refusal('OFFER_TOO_LARGE', `a package is at most ${LIMITS.maxOfferBytes} bytes`)
  if (Number(res.headers.get('content-length') ?? 0) > LIMITS.maxOfferBytes) throw tooLarge()
  const reader = res.body!.getReader()
  const chunks: Uint8Array[] = []
  let size = 0
  try {
    for (let read = await reader.read(); !read.done; read = await reader.read()) {
      size += read.value.byteLength
      if (size > LIMITS.maxOfferBytes) {
        void reader.cancel()
        throw tooLarge()
      }
      chunks.push(read.value)
    }
  } catch (error) {
    if (error instanceof Refusal) throw error
    throw new Refusal('OFFER_FETCH_FAILED', `the package could not be read (${(error as Error).name})`)
  }
  const bytes = new Uint8Array(size)
  let at = 0
  for (const chunk of chunks) bytes.set(chunk, (at += chunk.byteLength) - chunk.byteLength)
  try {
    return JSON.parse(new TextDecoder('utf-8', { fatal: true }).decode(bytes))
  } catch {
    throw new Refusal('OFFER_INVALID', 'the package is not JSON')
  }
}
