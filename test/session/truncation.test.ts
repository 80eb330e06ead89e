import { describe, expect, it } from 'vitest'
import type { LlmMessage } from '../../objects/llm/types.ts'
import { artifactRefsOf } from '../../objects/session/lineage/fork.ts'
import { epochKey, withoutCuts } from '../../objects/session/lineage/truncation.ts'

const messages: LlmMessage[] = Array.from({ length: 6 }, (_, i) => ({ role: 'user', content: `m${i}` }))

describe('truncation and context epochs', () => {
  it("a cut leaves out its range of the epoch it was made in, and nothing of another epoch's messages", () => {
    const cut = { at: 9, keep: 2, drop: 4, epoch: 0 }
    expect(withoutCuts(messages, [cut], 0).map((m) => m.content)).toEqual(['m0', 'm1', 'm4', 'm5'])
    // After a compaction the epoch's messages are new ones (a summary of what the model saw, cut
    // applied): indices of the old epoch mean nothing there.
    expect(withoutCuts(messages, [cut], 57)).toEqual(messages)
    // Cuts written before epochs existed belong to the first epoch.
    expect(withoutCuts(messages, [{ at: 9, keep: 1, drop: 2 }], epochKey(null)).map((m) => m.content)).toEqual(['m0', 'm2', 'm3', 'm4', 'm5'])
  })

  it('a fork carries the artifacts its copied events name', () => {
    const refs = artifactRefsOf([
      { payload: { baseline: 'sha256:aa', after: 0 }, artifacts: [] },
      { payload: { step: 's', tools: 'sha256:bb' }, artifacts: [] },
      { payload: { toolCallId: 'c', artifact: 'sha256:cc', content: 'cut' }, artifacts: [{ ref: 'sha256:dd' }] },
      { payload: { baseline: 'sha256:aa' }, artifacts: [] },
      { payload: { text: 'sha256:not-a-field-we-name' }, artifacts: [] },
    ])
    expect(refs.sort()).toEqual(['sha256:aa', 'sha256:bb', 'sha256:cc', 'sha256:dd'])
  })
})
