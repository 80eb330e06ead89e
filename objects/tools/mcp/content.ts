/**
 * An MCP tool result as the text a model reads. Text parts are joined; parts
 * a text model cannot read (images, audio, blobs) are named, not inlined, so a
 * large binary never reaches the transcript; structured content is shown as
 * JSON when the server sent no content parts.
 */

/** The part of an MCP `tools/call` result this module reads. */
export interface McpCallResult {
  content?: unknown[]
  structuredContent?: unknown
  isError?: boolean
}

/**
 * @example
 * resultText({ content: [{ type: 'text', text: 'a' }, { type: 'image', mimeType: 'image/png', data: '…' }] })
 * // 'a\n[image image/png, 3 base64 characters]'
 */
export function resultText(result: McpCallResult): string {
  const parts = (result.content ?? []).map(partText)
  if (parts.length === 0 && result.structuredContent !== undefined) return JSON.stringify(result.structuredContent)
  return parts.join('\n')
}

function partText(part: unknown): string {
  const p = (part ?? {}) as Record<string, unknown>
  switch (p.type) {
    case 'text':
      return String(p.text ?? '')
    case 'image':
    case 'audio':
      return `[${p.type} ${String(p.mimeType ?? '')}, ${String(p.data ?? '').length} base64 characters]`
    case 'resource': {
      const resource = (p.resource ?? {}) as Record<string, unknown>
      return typeof resource.text === 'string' ? resource.text : `[resource ${String(resource.uri ?? '')}]`
    }
    case 'resource_link':
      return `[resource ${String(p.uri ?? '')}${p.name ? ` (${String(p.name)})` : ''}]`
    default:
      return `[${String(p.type ?? 'unknown')} content]`
  }
}
