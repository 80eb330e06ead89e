/**
 * Node side of the test: a fake weather API on a loopback port, the one the `weather` tool calls in
 * the test run. It answers `GET /current?city=…` with a temperature and a sky that names the city,
 * and for `Atlantis` a temperature that is not a number (what the tool's output schema must refuse).
 */
import { createServer } from 'node:http'
import type { AddressInfo } from 'node:net'

/** Starts the fake; its URL, e.g. `http://127.0.0.1:40123`. */
export async function startWeatherFake(): Promise<string> {
  const server = createServer((req, res) => {
    const url = new URL(req.url ?? '/', 'http://fake')
    const city = url.searchParams.get('city') ?? ''
    if (url.pathname !== '/current' || !city) {
      res.writeHead(404).end()
      return
    }
    const body = city === 'Atlantis' ? { temperature: 'warm', sky: 'under water' } : { temperature: 7.5, sky: `clear over ${city}` }
    res.writeHead(200, { 'content-type': 'application/json' }).end(JSON.stringify(body))
  })
  await new Promise<void>((resolve) => server.listen(0, '127.0.0.1', resolve))
  // The run ends when the tests do; the fake does not hold the process open.
  server.unref()
  return `http://127.0.0.1:${(server.address() as AddressInfo).port}`
}
