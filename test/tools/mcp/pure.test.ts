/**
 * The pure parts of MCP support: provider-safe tool names (out and back), the
 * outbound URL policy, server entries and tool names, and result text.
 */
import { describe, expect, it } from 'vitest'
import { providerSafeNames, providerToolName } from '../../../objects/llm/tool-names.ts'
import type { LlmRequest } from '../../../objects/llm/types.ts'
import { resultText } from '../../../objects/tools/mcp/content.ts'
import { checkOutboundUrl, type OutboundPolicy } from '../../../objects/outbound/policy.ts'

const checkMcpUrl = (url: string, policy: OutboundPolicy) => checkOutboundUrl(url, policy, 'MCP_URL_REFUSED')
import { McpHeadersBody, McpServers, mcpServersOf, mcpToolName } from '../../../objects/tools/mcp/servers.ts'
import { NeuronError } from '../../../objects/core/errors.ts'

const codeOf = (work: () => unknown) => {
  try {
    work()
  } catch (error) {
    return (error as NeuronError).code
  }
  return null
}

describe('provider-safe tool names', () => {
  const request: LlmRequest = {
    provider: 'anthropic',
    model: 'm',
    tools: [
      { name: 'calculator', description: 'c', inputSchema: { type: 'object' } },
      { name: 'mcp.notes.search', description: 's', inputSchema: { type: 'object' } },
    ],
    messages: [
      { role: 'user', content: 'hi' },
      { role: 'assistant', content: [{ type: 'text', text: 'x' }, { type: 'tool-call', id: 't1', name: 'mcp.notes.search', input: {} }] },
      { role: 'tool', toolCallId: 't1', name: 'mcp.notes.search', content: 'found' },
    ],
  }

  it('sends dotted names as __ in tools and history alike, and names calls canonically again', () => {
    const names = providerSafeNames(request)
    expect(names.request.tools!.map((tool) => tool.name)).toEqual(['calculator', 'mcp__notes__search'])
    expect(JSON.stringify(names.request.messages)).not.toContain('mcp.notes.search')
    expect(names.inbound!({ type: 'tool-call', id: 't2', name: 'mcp__notes__search', input: {} })).toEqual({ type: 'tool-call', id: 't2', name: 'mcp.notes.search', input: {} })
    expect(names.inbound!({ type: 'tool-input-start', id: 't2', name: 'mcp__notes__search' })).toMatchObject({ name: 'mcp.notes.search' })
    // A name the request did not offer passes through as it came (the registry answers TOOL_NOT_FOUND).
    expect(names.inbound!({ type: 'tool-call', id: 't3', name: 'mcp__other__x', input: {} })).toMatchObject({ name: 'mcp__other__x' })
    // The caller's request is not changed.
    expect(request.tools![1]!.name).toBe('mcp.notes.search')
  })

  it('leaves a request without dotted names alone (no mapper, nothing copied)', () => {
    const plain = { ...request, tools: [request.tools![0]!] }
    const names = providerSafeNames(plain)
    expect(names.request).toBe(plain)
    expect(names.inbound).toBeUndefined()
    expect(providerToolName('calculator')).toBe('calculator')
  })
})

describe('MCP server entries and tool names', () => {
  it('names tools mcp.<server>.<tool> and refuses names a vendor would refuse', () => {
    expect(mcpToolName('notes', 'search_v2')).toBe('mcp.notes.search_v2')
    expect(codeOf(() => mcpToolName('notes', 'has.dot'))).toBe('TOOL_NAME_INVALID')
    expect(codeOf(() => mcpToolName('notes', 'has space'))).toBe('TOOL_NAME_INVALID')
    expect(codeOf(() => mcpToolName('notes', 'x'.repeat(60)))).toBe('TOOL_NAME_INVALID')
  })

  it('validates entries: names, URLs, unique names, bounded timeouts', () => {
    expect(McpServers.safeParse([{ name: 'notes', url: 'https://n.example/mcp', timeoutMs: 5000 }]).success).toBe(true)
    for (const bad of [
      [{ name: 'Notes', url: 'https://n.example/mcp' }],
      [{ name: 'no_underscore', url: 'https://n.example/mcp' }],
      [{ name: 'n', url: 'ftp://n.example/mcp' }],
      [{ name: 'n', url: 'https://a.example' }, { name: 'n', url: 'https://b.example' }],
      [{ name: 'n', url: 'https://a.example', timeoutMs: 10 }],
      [{ name: 'n', url: 'https://a.example', headers: { authorization: 'Bearer x' } }],
    ]) {
      expect(McpServers.safeParse(bad).success, JSON.stringify(bad)).toBe(false)
    }
    expect(mcpServersOf({ mcpServers: 'nonsense' })).toEqual([])
    expect(McpHeadersBody.safeParse({ headers: {} }).success).toBe(false)
    expect(McpHeadersBody.safeParse({ headers: { authorization: 'Bearer\nx' } }).success).toBe(false)
  })
})

describe('the outbound URL policy', () => {
  it('allows loopback only in development, and never private or link-local addresses', () => {
    const dev = { development: true }
    const prod = { development: false }
    expect(checkMcpUrl('https://mcp.example.com/mcp', prod).hostname).toBe('mcp.example.com')
    expect(checkMcpUrl('http://127.0.0.1:3000/mcp', dev).port).toBe('3000')
    expect(checkMcpUrl('http://localhost:3000/mcp', dev).hostname).toBe('localhost')
    expect(checkMcpUrl('http://[::1]:3000/mcp', dev).hostname).toBe('[::1]')
    for (const url of ['http://127.0.0.1/mcp', 'https://localhost/mcp', 'https://[::1]/mcp', 'http://mcp.example.com/mcp']) {
      expect(codeOf(() => checkMcpUrl(url, prod)), url).toBe('MCP_URL_REFUSED')
    }
    for (const url of ['http://10.0.0.5/mcp', 'https://192.168.1.1/', 'https://172.20.0.1/', 'https://169.254.169.254/latest', 'https://0.0.0.0/', 'https://[fd00::1]/', 'https://[fe80::1]/', 'https://[::ffff:10.0.0.1]/', 'https://100.64.0.1/']) {
      expect(codeOf(() => checkMcpUrl(url, dev)), url).toBe('MCP_URL_REFUSED')
    }
  })
})

describe('MCP results as text', () => {
  it('joins text, names binary parts, shows structured content when there is no content', () => {
    expect(resultText({ content: [{ type: 'text', text: 'a' }, { type: 'image', mimeType: 'image/png', data: 'abc' }] })).toBe('a\n[image image/png, 3 base64 characters]')
    expect(resultText({ content: [{ type: 'resource', resource: { uri: 'file:///x', text: 'inside' } }, { type: 'resource_link', uri: 'file:///y', name: 'y' }] })).toBe('inside\n[resource file:///y (y)]')
    expect(resultText({ content: [], structuredContent: { n: 1 } })).toBe('{"n":1}')
  })
})
