/**
 * Counter tile: the README's sample app with a backend. It connects to the
 * shell's bus like every app, reads the count from its own backend
 * (`canister.querySelf`, a query) and adds one with `canister.updateSelf` (an
 * update, appended to the app's ledger). Signed out, the kernel answers
 * SIGN_IN_REQUIRED and the tile says so.
 */
import { BusError, canister, createMsgBusClient } from '../../sdk/index.ts'
import { el, mount } from '../ui.ts'

const bus = createMsgBusClient()
const count = el('output', { class: 'count', 'aria-live': 'polite' }, '…')
const status = el('p', { class: 'status', role: 'status' })

async function show(work: () => Promise<{ output: { count: number } }>) {
  try {
    count.textContent = String((await work()).output.count)
    status.textContent = ''
  } catch (error) {
    status.textContent = error instanceof BusError ? `${error.code}: ${error.message}` : String(error)
  }
}

mount(
  el('p', {}, 'A counter with a backend.'),
  el('p', {}, 'Count: ', count),
  el('div', { class: 'row' }, el('button', { type: 'button', class: 'increment', onclick: () => void show(() => canister.updateSelf('increment', { by: 1 })) }, '+1')),
  status,
)
void bus.ready.then(() => show(() => canister.querySelf('count', {})))
