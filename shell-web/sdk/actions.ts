/**
 * The private actions the trusted page performs for an app frame, as plain functions. None is a
 * tool: nothing here is discoverable or callable by another app, and each acts for this frame's
 * own app only. Call the clipboard and wallet ones synchronously from a click handler (they need
 * the focused tile and transient user activation); the request is sent at once, in the same turn.
 *
 * @example
 * button.onclick = () => void writeClipboardText(note.body)          // a focused tile
 * await setTrayBadge(unread)                                         // the app's background
 * const { session, accounts } = await ethereumProvider.connect()     // UNAVAILABLE without a wallet
 */
import { Transport } from './transport.ts'

const send = <O>(action: string, payload: object): Promise<O> => Transport.shared().request(action, payload) as Promise<O>

/** The app's tray badge (background only; the app must declare a tray): 0–9999, or null for none. */
export const setTrayBadge = (badge: number | null): Promise<{ badge: number | null }> => send('tray.set_state', { badge })

/** Closes this tray popover (tray only): the frame and its endpoint go away. */
export const dismissTray = (): Promise<object> => send('tray.dismiss', {})

/** Writes text (≤ 256 KiB) to the clipboard; the trusted page performs the write (focused tile, in a click handler). */
export const writeClipboardText = (text: string): Promise<object> => send('clipboard.write_text', { text })

/** The wallet the browser injects (EIP-1193), brokered by the trusted page; the app gets a session id, never the provider. */
export const ethereumProvider = {
  connect: () => send<{ session: string; accounts: string[]; chainId: string }>('ethereum_provider.connect', {}),
  request: <R = unknown>(session: string, method: string, params?: unknown[]) =>
    send<{ result: R }>('ethereum_provider.request', params === undefined ? { session, method } : { session, method, params }).then((r) => r.result),
  disconnect: (session: string) => send<object>('ethereum_provider.disconnect', { session }),
}
