/**
 * Writes the delivery bench's wrangler config: production's `wrangler.toml` with the bench worker
 * as `main`, plus the bench-only `DeliveryLimitObject` (its binding and migration tag). Generated,
 * so it never drifts from production's bindings; written next to `wrangler.toml` (git-ignored)
 * because wrangler resolves every path in a config from the config's own folder.
 */
import { readFileSync, writeFileSync } from 'node:fs'
import { join } from 'node:path'

const ROOT = join(import.meta.dirname, '../..')

/**
 * @example
 * const dev = await startWrangler({ config: deliveryConfig() })
 */
export function deliveryConfig(): string {
  const production = readFileSync(join(ROOT, 'wrangler.toml'), 'utf8')
  const main = /^main = .*$/m
  if (!main.test(production)) throw new Error('wrangler.toml has no `main` line to replace')
  const path = join(ROOT, 'wrangler.bench-delivery.toml')
  writeFileSync(
    path,
    `${production.replace(main, 'main = "bench/delivery/worker.ts"')}
# Bench only (bench/delivery/): the physical limit of a durable event's delivery.
[[durable_objects.bindings]]
name = "DELIVERY_LIMIT"
class_name = "DeliveryLimitObject"

[[migrations]]
tag = "bench-delivery-limit"
new_sqlite_classes = ["DeliveryLimitObject"]
`,
  )
  return path
}
