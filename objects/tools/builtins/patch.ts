/**
 * `apply_patch` over the session's workspace (or its orchestration's, objects/workspace/host.ts): the `*** Begin Patch` and unified formats agents emit
 * (objects/workspace/patch/), parsed, every hunk preflighted against the files as they are, then
 * the files that apply committed as one workspace operation. A file is the unit: it changes with
 * all its hunks or not at all, so no file is ever half-written, and a crash leaves each file before
 * or after its change. The report says, file by file and hunk by hunk, what applied and why not.
 * The call asserts the permission policy over every path the patch names before it writes.
 */
import { z } from 'zod'
import { MAX_PATCH_BYTES } from '../../core/limits.ts'
import { planPatch } from '../../workspace/patch/apply.ts'
import { parsePatch } from '../../workspace/patch/parse.ts'
import { filePath } from '../../workspace/paths.ts'
import { Tool } from '../tool.ts'
import { assertFiles, type WorkspaceAccess } from './files.ts'

const HunkReport = z.object({ hunk: z.number(), status: z.enum(['applied', 'failed', 'held']), line: z.number().optional(), fuzz: z.string().optional(), reason: z.string().optional() })
const FileReport = z.object({
  op: z.enum(['add', 'delete', 'update']),
  path: z.string(),
  moveTo: z.string().optional(),
  status: z.enum(['applied', 'failed', 'held']),
  reason: z.string().optional(),
  hunks: z.array(HunkReport),
})

/**
 * @example
 * registry.register('apply_patch', applyPatchTool(workspace))
 */
export function applyPatchTool(workspace: WorkspaceAccess) {
  return Tool.make({
    description:
      'Apply a patch to workspace files: the "*** Begin Patch" format (*** Add File / *** Update File / *** Delete File, @@ hunks, *** End Patch) or a unified diff. Each file applies whole or not at all; the report says which hunks applied. Set atomic to apply nothing unless every file applies.',
    input: z.object({ patch: z.string().min(1).max(MAX_PATCH_BYTES), atomic: z.boolean().optional() }),
    output: z.object({ complete: z.boolean(), applied: z.number(), failed: z.number(), files: z.array(FileReport) }),
    execute: async (input, context) => {
      const patch = parsePatch(input.patch)
      const paths = new Set<string>()
      for (const file of patch.files) {
        paths.add(filePath(file.path))
        if (file.kind === 'update' && file.moveTo !== null) paths.add(filePath(file.moveTo))
      }
      await assertFiles(context, 'apply_patch', [...paths], { files: [...paths], bytes: input.patch.length })
      const before = await workspace.readMany(paths)
      const plan = planPatch(patch, { read: (path) => before.get(path) ?? null }, { atomic: input.atomic ?? false })
      if (plan.writes.length > 0) await workspace.commit(plan.writes, context.toolCallId)
      const applied = plan.files.filter((file) => file.status === 'applied').length
      return { complete: plan.complete, applied, failed: plan.files.filter((file) => file.status === 'failed').length, files: plan.files }
    },
  })
}
