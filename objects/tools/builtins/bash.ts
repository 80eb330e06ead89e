/**
 * `bash`: one command line in a shell over the session's workspace, mounted at `/workspace`
 * through its file port (each file the command writes is a workspace change made `by` the call).
 * The executor is the embedded one (objects/workspace/bash/embedded.ts: just-bash in this isolate,
 * no network) unless the session is given another behind the same interface; its bounds are
 * `BASH_LIMITS`. The call asserts the permission policy over each simple command of the line first.
 * Output beyond what the model is shown is kept whole as the call's artifact by the settlement
 * pipeline (objects/tools/settle.ts), readable at `/v1/sessions/{id}/artifacts/{ref}`.
 */
import { z } from 'zod'
import { BASH_LIMITS } from '../../core/limits.ts'
import { splitCommands } from '../../permission/commands.ts'
import type { Executor } from '../../workspace/bash/executor.ts'
import { filePort } from '../../workspace/host.ts'
import { normalizePath } from '../../workspace/paths.ts'
import { Tool } from '../tool.ts'
import type { WorkspaceAccess } from './files.ts'

/**
 * @example
 * registry.register('bash', bashTool(workspace, embeddedExecutor))
 */
export function bashTool(workspace: WorkspaceAccess, executor: Executor) {
  return Tool.make({
    description: `Run a bash command line in the workspace (/workspace; no network). Coreutils, grep, sed, awk, jq and the like are there. At most ${BASH_LIMITS.wallMs / 1000} s and ${BASH_LIMITS.outputBytes / 1024} KiB of output.`,
    input: z.object({ command: z.string().min(1).max(64 * 1024), cwd: z.string().max(2048).optional(), timeoutMs: z.number().int().min(1).max(BASH_LIMITS.wallMs).optional() }),
    output: z.object({ exitCode: z.number(), stdout: z.string(), stderr: z.string(), stopped: z.string().nullable(), executor: z.string() }),
    execute: async (input, context) => {
      const cwd = normalizePath(input.cwd ?? '')
      const { commands } = splitCommands(input.command)
      await context.permission.assert({ tool: 'bash', source: 'builtin', subjects: commands.length > 0 ? commands : [input.command], input })
      const result = await executor.run(input.command, {
        cwd,
        files: filePort(workspace, context.toolCallId),
        signal: context.signal,
        ...(input.timeoutMs === undefined ? {} : { limits: { wallMs: input.timeoutMs } }),
      })
      return { ...result, executor: executor.name }
    },
  })
}
