/**
 * The query shapes of the workspace's routes (worker/routes/workspace.ts) and RPC surface
 * (calls.ts), one definition for both. Numbers arrive as query strings: coerced.
 */
import { z } from 'zod'
import { MAX_PAGE } from '../core/limits.ts'

const Seq = z.coerce.number().int().min(0)

/** `GET …/workspace` and `…/workspace/tar`: a directory (default the root), as of `at`. */
export const ListQuery = z.strictObject({ dir: z.string().max(2048).optional(), at: Seq.optional(), after: z.string().max(2048).optional(), limit: z.coerce.number().int().min(1).max(MAX_PAGE).optional() })

/** `PUT …/workspace/file`: the file to write. */
export const FileQuery = z.strictObject({ path: z.string().min(1).max(2048) })

/** `GET …/workspace/file`: a file as of `at`; a byte range (`offset`, `length`) or a line range (`line`, `lines`). */
export const ReadQuery = z
  .strictObject({
    path: z.string().min(1).max(2048),
    at: Seq.optional(),
    offset: z.coerce.number().int().min(0).optional(),
    length: z.coerce.number().int().min(0).optional(),
    line: z.coerce.number().int().min(1).optional(),
    lines: z.coerce.number().int().min(1).optional(),
  })
  .refine((q) => !((q.offset !== undefined || q.length !== undefined) && (q.line !== undefined || q.lines !== undefined)), { message: 'a byte range or a line range, not both' })

/** `GET …/workspace/diff`: the paths that differ between sequences `from` and `to` (default now). */
export const DiffQuery = z.strictObject({ from: Seq, to: Seq.optional(), after: Seq.optional(), limit: z.coerce.number().int().min(1).max(MAX_PAGE).optional() })
