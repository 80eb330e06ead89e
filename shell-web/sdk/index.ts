/**
 * The Neutron app SDK. Import it from an app page; it connects to the shell's
 * kernel on its own (the kernel probes, the SDK answers once, the kernel hands
 * over a private port).
 *
 * @example
 * import { exposeTool, callTool, publishAppStateChange } from '../../sdk/index.ts'
 * exposeTool('notes_search', options, async ({ query }) => ({ matches: search(query) }))
 * const { matches } = await callTool({ target: 'app:notes:background', name: 'notes_search', arguments: { query: 'x' } })
 */
import { createMsgBusClient } from './client.ts'
import type { CallOptions, StateChange, ToolCall, ToolHandler, ToolOptions } from './types.ts'

export { createMsgBusClient, type MsgBusClient } from './client.ts'
export { dismissTray, ethereumProvider, setTrayBadge, writeClipboardText } from './actions.ts'
export { canister, connections, vetkeys } from './backend.ts'
export { BusError } from './errors.ts'
export { withAttachment } from './expose.ts'
export type * from './types.ts'

const bus = () => createMsgBusClient()

export const exposeTool = <I, O>(name: string, options: ToolOptions, handler: ToolHandler<I, O>): Promise<void> => bus().exposeTool(name, options, handler)
export const removeExposedTool = (name: string): Promise<void> => bus().removeExposedTool(name)
export const callTool = <O = unknown>(call: ToolCall<unknown>, options?: CallOptions): Promise<O> => bus().callTool<O>(call, options)
export const listApps = () => bus().listApps()
export const listEndpoints = () => bus().listEndpoints()
export const listTools = (target: string) => bus().listTools(target)
export const publishAppStateChange = (topic: string, revision: number): Promise<void> => bus().publishAppStateChange(topic, revision)
export const onAppStateChange = (topic: string, listener: (change: StateChange) => void): (() => void) => bus().onAppStateChange(topic, listener)
