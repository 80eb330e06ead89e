/// <reference types="vite/client" />
/**
 * Only the workspace store writes `workspace_file`: it carries the tree's totals forward instead of
 * counting them per write, and folds the index in the transaction that appends each event, so a
 * write from anywhere else would leave the totals and the events out of step with the index.
 */
import { describe, expect, it } from 'vitest'

const sources = import.meta.glob(['../../objects/**/*.ts', '../../worker/**/*.ts'], { query: '?raw', import: 'default', eager: true }) as Record<string, string>

const writesIndex = /\b(?:insert\s+(?:or\s+\w+\s+)?into|replace\s+into|update|delete\s+from)\s+["'`]?workspace_file["'`]?(?![\w.])|\.(?:insert|update|delete)\(\s*workspaceFile\s*\)/i

describe('writers of the workspace index', () => {
  it('the store is the only module that writes workspace_file', () => {
    const writers = Object.keys(sources)
      .filter((file) => writesIndex.test(sources[file]!))
      .map((file) => file.replace('../../', ''))
    expect(writers).toEqual(['objects/workspace/store.ts'])
  })

  it('the pattern finds the writes it is meant to find', () => {
    for (const write of ['insert into workspace_file (path) values (1)', 'DELETE FROM "workspace_file" where 1', 'db.update(workspaceFile)']) expect(writesIndex.test(write), write).toBe(true)
    for (const read of ['select path from workspace_file', 'insert into workspace_files values (1)', 'db.select().from(workspaceFile)']) expect(writesIndex.test(read), read).toBe(false)
  })
})
