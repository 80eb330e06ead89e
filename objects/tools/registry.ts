/**
 * A registration-scoped overlay of tools (spec §4). Registering a name over an
 * existing one shadows it; closing the newer registration reveals the prior.
 * A call is settled only against the registration the model was shown: if it
 * has closed since, the call is rejected without executing.
 */
import { z } from 'zod'
import type { ToolSpec } from '../llm/types.ts'
import type { Tool } from './tool.ts'

export interface Registration {
  readonly name: string
  readonly tool: Tool
  readonly scope: string
  readonly active: boolean
  close(): void
}

/**
 * @example
 * const tools = new ToolRegistry()
 * const app = tools.register('search', appSearch, 'app:notes')
 * app.close() // the previous `search`, if any, is visible again
 */
export class ToolRegistry {
  private readonly stack: Registration[] = []
  private offers: (name: string) => boolean = () => true

  /**
   * Narrows what `snapshot` offers, whatever registered it, to the names `offers` accepts: the
   * session's agent profile (objects/session/wiring/toolset.ts sets it, once).
   *
   * @example
   * tools.offerOnly((name) => name === 'calculator')
   */
  offerOnly(offers: (name: string) => boolean): void {
    this.offers = offers
  }

  register(name: string, tool: Tool, scope = 'location'): Registration {
    const stack = this.stack
    let active = true
    const registration: Registration = {
      name,
      tool,
      scope,
      get active() {
        return active
      },
      close() {
        active = false
        const index = stack.indexOf(registration)
        if (index >= 0) stack.splice(index, 1)
      },
    }
    stack.push(registration)
    return registration
  }

  /** The latest active registration of `name`. */
  resolve(name: string): Registration | undefined {
    for (let i = this.stack.length - 1; i >= 0; i--) {
      if (this.stack[i]!.name === name) return this.stack[i]
    }
    return undefined
  }

  /** What the model is shown this turn: one registration per name, the latest, of the names offered. */
  snapshot(): Map<string, Registration> {
    const visible = new Map<string, Registration>()
    for (const registration of this.stack) visible.set(registration.name, registration)
    for (const name of visible.keys()) if (!this.offers(name)) visible.delete(name)
    return visible
  }
}

const specs = new WeakMap<Registration, ToolSpec>()

/** The model-facing definitions of a snapshot, input schemas as JSON Schema (derived once per registration). */
export function specsOf(snapshot: Map<string, Registration>): ToolSpec[] {
  return [...snapshot.values()].map((registration) => {
    let spec = specs.get(registration)
    if (!spec) {
      const { name, tool } = registration
      const inputSchema = tool.inputSchema ?? (z.toJSONSchema(tool.input, { target: 'draft-2020-12', io: 'input' }) as Record<string, unknown>)
      spec = { name, description: tool.description, inputSchema }
      specs.set(registration, spec)
    }
    return spec
  })
}
