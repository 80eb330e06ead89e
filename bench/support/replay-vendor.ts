/**
 * A remote vendor for the delivery bench: an OpenAI-compatible chat-completions server on
 * loopback that answers every request with the local model's exact bytes for it (the same
 * `planTurn` and wire encoder the in-process local model uses), all at once. Run as a script
 * (`node bench/support/replay-vendor.ts`), it prints its base URL; it runs in its own process so
 * its work never stalls the bench's clients, which measure in the parent.
 *
 * @example
 * const child = spawn(process.execPath, ['bench/support/replay-vendor.ts'], { stdio: ['ignore', 'pipe', 'inherit'] })
 * // stdout: http://127.0.0.1:40123/v1  → wrangler dev with OLLAMA_BASE_URL set to it
 */
import { createServer } from 'node:http'
import type { AddressInfo } from 'node:net'
import { planTurn, type ChatBody } from '../../objects/llm/local/reply.ts'
import { sseEvents } from '../../objects/llm/local/wire.ts'

const server = createServer(async (req, res) => {
  let raw = ''
  for await (const chunk of req) raw += chunk
  const turn = planTurn({ ...(JSON.parse(raw) as ChatBody), model: 'echo-1' })
  res.writeHead(200, { 'content-type': 'text/event-stream' })
  for (const event of sseEvents(turn, 'qwen3:8b')) res.write(event)
  res.end()
})
server.listen(0, '127.0.0.1', () => console.log(`http://127.0.0.1:${(server.address() as AddressInfo).port}/v1`))
