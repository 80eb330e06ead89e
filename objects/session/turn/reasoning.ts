/**
 * The reasoning blocks of one provider turn, in the order the model produced
 * them. A vendor may send several: signed thinking blocks (text, then the
 * signature that ends the block) and encrypted ones that arrive whole. Each is
 * recorded as its own `session.next.reasoning` event, because a vendor that
 * requires them back (Anthropic, with thinking and tools) checks each block's
 * signature and their order.
 */
import type { AssistantPart } from '../../llm/types.ts'

type Block = Extract<AssistantPart, { type: 'reasoning' | 'redacted-reasoning' }>

/**
 * @example
 * const blocks = new ReasoningBlocks()
 * blocks.text('Let me think'); blocks.sign('EqQB…'); blocks.redacted('EmwK…')
 * blocks.list() // [{ type: 'reasoning', text: 'Let me think', signature: 'EqQB…' }, { type: 'redacted-reasoning', data: 'EmwK…' }]
 */
export class ReasoningBlocks {
  readonly #blocks: Block[] = []
  #open: { type: 'reasoning'; text: string; signature?: string } | null = null

  /** Text of the open thinking block (a block after a signed one starts a new block). */
  text(delta: string): void {
    if (!this.#open) this.#blocks.push((this.#open = { type: 'reasoning', text: '' }))
    this.#open.text += delta
  }

  /** The signature that ends the open block (or a block with no text). */
  sign(signature: string): void {
    if (!this.#open) this.#blocks.push((this.#open = { type: 'reasoning', text: '' }))
    this.#open.signature = signature
    this.#open = null
  }

  /** A whole encrypted block. */
  redacted(data: string): void {
    this.#open = null
    this.#blocks.push({ type: 'redacted-reasoning', data })
  }

  list(): readonly Block[] {
    return this.#blocks
  }
}
