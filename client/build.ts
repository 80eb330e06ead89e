/**
 * Builds the client for places that cannot run its TypeScript: one ES module
 * for Node ≥ 20, browsers and Workers (`dist/client/index.js` and
 * `index.d.ts`, whose declarations live in `dist/client/types/`), and the `neuron` CLI as one Node ≥ 20
 * script (`dist/client/neuron.js`). Both are git-ignored build output.
 *
 * @example
 * node client/build.ts        // or: npm run build:client
 * node dist/client/neuron.js --help
 */
import { execFileSync } from 'node:child_process'
import { writeFileSync } from 'node:fs'
import { resolve } from 'node:path'
import { build } from 'esbuild'

const ROOT = resolve(import.meta.dirname, '..')
const OUT = resolve(ROOT, 'dist/client')

await build({
  entryPoints: [resolve(ROOT, 'client/index.ts')],
  outfile: resolve(OUT, 'index.js'),
  bundle: true,
  format: 'esm',
  platform: 'neutral',
  target: 'es2022',
  logLevel: 'warning',
})
await build({
  entryPoints: [resolve(ROOT, 'client/cli/neuron.ts')],
  outfile: resolve(OUT, 'neuron.js'),
  bundle: true,
  format: 'esm',
  platform: 'node',
  target: 'node20',
  // The dev-token signer is loaded on demand from this checkout's scripts/ at `neuron login`.
  external: ['../../scripts/dev-token.mjs'],
  logLevel: 'warning',
})
execFileSync(process.execPath, [resolve(ROOT, 'node_modules/typescript/bin/tsc'), '-p', resolve(ROOT, 'client/tsconfig.build.json')], { stdio: 'inherit' })
// The declarations keep the source tree's layout (client/ beside the objects/ files it names types from).
writeFileSync(resolve(OUT, 'index.d.ts'), "export * from './types/client/index.js'\n")
