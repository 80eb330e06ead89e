/**
 * A tool of this project's own: today's weather for a city, read from a weather API over `fetch`.
 * `Tool.make` gives it Neuron's built-ins' contract: the input is checked before `execute` runs,
 * the output against its schema after (a wrong answer fails the call with `TOOL_OUTPUT_INVALID`),
 * the call stops when the session is interrupted (`signal`), and its settlement is recorded in the
 * session's history. The API's base URL is the Worker's `WEATHER_API_URL` variable.
 */
import { env } from 'cloudflare:workers'
import { NeuronError, Tool } from 'neuron'
import { z } from 'zod'

/**
 * @example
 * // the local model, prompted with: /tool weather {"city":"Oslo"}
 */
export const weather = Tool.make({
  description: "Today's weather in a city: temperature in °C and the sky.",
  input: z.object({ city: z.string().min(1).max(100) }),
  output: z.object({ city: z.string(), celsius: z.number(), sky: z.string().max(200) }),
  async execute({ city }, { signal }) {
    const url = `${env.WEATHER_API_URL.replace(/\/+$/, '')}/current?city=${encodeURIComponent(city)}`
    const res = await fetch(url, { signal })
    if (!res.ok) throw new NeuronError('WEATHER_UNAVAILABLE', `the weather API answered ${res.status} for ${city}`)
    const body = (await res.json()) as { temperature?: unknown; sky?: unknown }
    // Passed on as the API gave them: the output schema is what checks them.
    return { city, celsius: body.temperature as number, sky: body.sky as string }
  },
})
