/**
 * Endpoint ids exactly as the spec spells them. Only the kernel mints them;
 * apps may read and pass them around, but never assert their own.
 *
 * @example
 * endpointId({ app: 'notes', kind: 'tile', tileId: 't1', instanceId: '9f2c' })
 * // 'app:notes:tile:t1:instance:9f2c'
 */
export type EndpointKind = 'background' | 'tile' | 'tray'
/** Who may be a call's caller: an app's endpoint, or the agent (the bridge to a session's model, on the trusted page). */
export type CallerKind = EndpointKind | 'agent'

export interface EndpointAddress {
  app: string
  kind: EndpointKind
  tileId?: string
  instanceId?: string
}

export const KERNEL = 'kernel'

/** App ids: short, lowercase, never `kernel`. */
export const APP_ID = /^[a-z][a-z0-9-]{1,31}$/
const PART = /^[A-Za-z0-9-]{1,32}$/

/** Formats an endpoint id; throws on parts that would make it ambiguous. */
export function endpointId(address: EndpointAddress): string {
  const { app, kind, tileId, instanceId } = address
  if (!APP_ID.test(app)) throw new Error(`bad app id ${app}`)
  if (kind === 'background') return `app:${app}:background`
  if (!instanceId || !PART.test(instanceId)) throw new Error('instance id required')
  if (kind === 'tray') return `app:${app}:tray:instance:${instanceId}`
  if (!tileId || !PART.test(tileId)) throw new Error('tile id required')
  return `app:${app}:tile:${tileId}:instance:${instanceId}`
}

/** Parses an endpoint id, or returns null for anything that is not one. */
export function parseEndpointId(id: unknown): EndpointAddress | null {
  if (typeof id !== 'string' || id.length > 128) return null
  const parts = id.split(':')
  if (parts[0] !== 'app' || !APP_ID.test(parts[1] ?? '')) return null
  const app = parts[1]!
  if (parts.length === 3 && parts[2] === 'background') return { app, kind: 'background' }
  if (parts.length === 5 && parts[2] === 'tray' && parts[3] === 'instance' && PART.test(parts[4]!)) {
    return { app, kind: 'tray', instanceId: parts[4]! }
  }
  if (parts.length === 6 && parts[2] === 'tile' && parts[4] === 'instance' && PART.test(parts[3]!) && PART.test(parts[5]!)) {
    return { app, kind: 'tile', tileId: parts[3]!, instanceId: parts[5]! }
  }
  return null
}
