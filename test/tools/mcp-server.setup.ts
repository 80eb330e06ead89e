/**
 * Vitest globalSetup (Node, outside workerd): the official SDK's MCP server on
 * 127.0.0.1 (test/support/mcp-server.ts). Tests in workerd reach it at `inject('mcpServerUrl')`.
 */
import type { TestProject } from 'vitest/node'
import { startMcpServer } from '../support/mcp-server.ts'

declare module 'vitest' {
  export interface ProvidedContext {
    mcpServerUrl: string
  }
}

export default async function setup(project: TestProject): Promise<() => Promise<void>> {
  const server = await startMcpServer()
  project.provide('mcpServerUrl', server.url)
  return () => server.close()
}
