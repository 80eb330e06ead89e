/**
 * App packages as the shell sees them (pure). A package (docs/backends.md) is
 * what a person installs through the API: a manifest, frontend files, an
 * optional backend. The shell runs it as a kernel manifest whose entries are
 * the package's files at the address the server gave the person's install
 * (`/app-frames/<token>/`), so the frame's path — and so its identity — names
 * the exact content-addressed version. Before anything is stored, an offered
 * package is described here for the person: name, version, content id, whether
 * it has a backend, the origins it will ask for.
 *
 * @example
 * const manifest = parseManifest(manifestOfPackage(pkg, '/app-frames/<token>/'))
 * const offer = await describePackage(pkg) // { app, name, version, hash, backend, origins, … }
 */
import canonicalize from 'canonicalize'
import { parseManifest } from './manifest.ts'
import { isRecord } from '../../protocol/envelope.ts'

type Kind = 'tile' | 'tray' | 'background'

/** What the person is shown before an offered package is stored. */
export interface PackageOffer {
  app: string
  name: string
  version: string
  /** The content id the server will give it: SHA-256 of its canonical JSON. */
  hash: string
  backend: boolean
  /** Backend methods, by name. */
  methods: string[]
  /** Network origins its backend will ask to reach (declared; granting is separate). */
  origins: string[]
  /** The frames it runs in the shell. */
  frames: Kind[]
}

/**
 * The kernel manifest of `pkg` served from `base` (unchecked: the kernel parses it like any other).
 * A package without `manifest.entries` runs its `entry` file as a tile.
 */
export function manifestOfPackage(pkg: unknown, base: string): unknown {
  const m = (isRecord(pkg) && isRecord(pkg.manifest) ? pkg.manifest : {}) as Record<string, unknown>
  const files = (isRecord(m.entries) ? m.entries : { tile: m.entry }) as Partial<Record<Kind, unknown>>
  const entries = Object.fromEntries(Object.entries(files).map(([kind, file]) => [kind, typeof file === 'string' ? base + file : file]))
  const optional = Object.fromEntries((['tools', 'permissions', 'agentEntrypoints', 'vetkeys'] as const).filter((k) => m[k] !== undefined).map((k) => [k, m[k]]))
  return { id: m.app, version: m.version, title: m.name, ...(m.description !== undefined ? { description: m.description } : {}), entries, ...optional }
}

/**
 * Describes an offered package, or throws with the first reason the shell could not run it
 * (the server checks it again, whole, when it is stored).
 */
export async function describePackage(pkg: unknown): Promise<PackageOffer> {
  if (!isRecord(pkg) || !isRecord(pkg.manifest) || !isRecord(pkg.files)) throw new Error('not an app package: expected { manifest, files, backend?, interface? }')
  // A placeholder address: the real one is the server's, once it is installed.
  const manifest = parseManifest(manifestOfPackage(pkg, `/app-frames/${'0'.repeat(64)}.AA.${'A'.repeat(43)}/`))
  for (const kind of Object.keys(manifest.entries) as Kind[]) {
    const file = manifest.entries[kind]!.replace(/^\/app-frames\/[^/]+\//, '')
    if (!Object.hasOwn(pkg.files, file)) throw new Error(`the ${kind} file ${JSON.stringify(file)} is not among the package's files`)
  }
  const methods = isRecord(pkg.interface) && isRecord(pkg.interface.methods) ? Object.keys(pkg.interface.methods) : []
  const origins = pkg.manifest.origins
  return {
    app: manifest.id,
    name: manifest.title,
    version: manifest.version,
    hash: await packageHash(pkg),
    backend: isRecord(pkg.backend),
    methods,
    origins: Array.isArray(origins) ? origins.filter((o): o is string => typeof o === 'string') : [],
    frames: Object.keys(manifest.entries) as Kind[],
  }
}

/**
 * A package's content id, as the server computes it: SHA-256 of the RFC 8785 canonical JSON of the
 * package with its defaults filled in (a package without `interface` has no methods).
 */
export async function packageHash(pkg: Record<string, unknown>): Promise<string> {
  const text = canonicalize({ ...pkg, interface: pkg.interface ?? { methods: {} } })
  if (text === undefined) throw new Error('not JSON')
  const digest = await crypto.subtle.digest('SHA-256', new TextEncoder().encode(text))
  return [...new Uint8Array(digest)].map((b) => b.toString(16).padStart(2, '0')).join('')
}
