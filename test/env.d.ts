/** Types `env` and `exports` from `cloudflare:workers` inside the workers test pool. */
import type { Env as WorkerEnv } from '../objects/core/env.ts'

declare global {
  namespace Cloudflare {
    interface Env extends WorkerEnv {}
    interface GlobalProps {
      mainModule: typeof import('../worker/index.ts')
      durableNamespaces: 'LedgerObject' | 'SessionObject' | 'MeterObject' | 'DirectoryObject'
    }
  }
}
