/**
 * Tool names as vendors accept them. Anthropic and OpenAI take only
 * `[A-Za-z0-9_-]` in a tool name, but Neuron names layered tools with dots
 * (`mcp.notes.search`). This stage sits in front of every dialect: the request
 * goes out with each `.` written as `__` (in the offered tools and in the tool
 * calls of the history alike, so the bytes of earlier turns never change), and
 * tool calls coming back are named canonically again, by the table of the names
 * this request offered. A name the table does not know passes through as it came.
 */
import type { LlmEvent, LlmMessage, LlmRequest } from './types.ts'

/**
 * The provider-safe form of a canonical tool name.
 *
 * @example
 * providerToolName('mcp.notes.search') // 'mcp__notes__search'
 * providerToolName('calculator')       // 'calculator'
 */
export function providerToolName(name: string): string {
  return name.includes('.') ? name.replaceAll('.', '__') : name
}

/**
 * The request as the dialect should send it, and the event mapper that names tool calls canonically.
 *
 * @example
 * const names = providerSafeNames(request)
 * dialect.request({ request: names.request, ... })
 * for (const event of events) out.push(names.inbound ? names.inbound(event) : event)
 */
export function providerSafeNames(request: LlmRequest): { request: LlmRequest; inbound?(event: LlmEvent): LlmEvent } {
  const tools = request.tools ?? []
  // Nothing to rename (the common case): no mapper, so the hot path copies nothing.
  if (!tools.some((tool) => tool.name.includes('.'))) return { request }
  const canonical = new Map(tools.map((tool) => [providerToolName(tool.name), tool.name]))
  return {
    request: { ...request, tools: tools.map((tool) => ({ ...tool, name: providerToolName(tool.name) })), messages: request.messages.map(outbound) },
    inbound(event) {
      if (event.type !== 'tool-call' && event.type !== 'tool-input-start') return event
      const name = canonical.get(event.name)
      return name === undefined ? event : { ...event, name }
    },
  }
}

function outbound(message: LlmMessage): LlmMessage {
  if (message.role === 'tool') return message.name.includes('.') ? { ...message, name: providerToolName(message.name) } : message
  if (message.role !== 'assistant' || !message.content.some((part) => part.type === 'tool-call' && part.name.includes('.'))) return message
  return { ...message, content: message.content.map((part) => (part.type === 'tool-call' ? { ...part, name: providerToolName(part.name) } : part)) }
}
