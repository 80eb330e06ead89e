/** This Worker's own variables, on top of the bindings Neuron needs (wrangler.toml). */
import type { Env as NeuronEnv } from 'neuron'

declare global {
  namespace Cloudflare {
    interface Env extends NeuronEnv {
      /** The weather API the `weather` tool calls. */
      WEATHER_API_URL: string
    }
    /** What the tests' `exports` from `cloudflare:workers` holds: this Worker's entry. */
    interface GlobalProps {
      mainModule: typeof import('./src/index.ts')
    }
  }
}
