/**
 * The import graph of objects/ keeps its layers: nothing in objects/ reaches into the worker
 * (objects run behind any gate; the worker composes them, never the other way), sessions and
 * orchestrations never import each other (what both speak lives in a neutral module:
 * agent-link/, llm/owner-catalog.ts), delivery/ (the one stream endpoint both use) imports
 * neither, and no session stage imports the session object (each reads the core port it is handed). Every static import and re-export counts, type-only ones too (a type import still
 * couples the layers), and so does a dynamic `import('…')` outside comments. Pure: no server is
 * started.
 */
import { readdirSync, readFileSync } from 'node:fs'
import { dirname, join, relative, resolve } from 'node:path'
import { describe, expect, it } from 'vitest'

const ROOT = resolve(process.env.ARCHITECTURE_ROOT ?? join(import.meta.dirname, '../..'))

/** One import: the importing file and the file it names, both relative to the repository. */
interface Edge {
  from: string
  to: string
}

/** The layer rules, each a predicate over one edge and the reason it is refused. */
const RULES: { refuses: (edge: Edge) => boolean; why: string }[] = [
  { refuses: ({ to }) => to.startsWith('worker/'), why: 'objects/ must not import worker/' },
  { refuses: ({ from, to }) => within(from, 'session') && within(to, 'orchestration'), why: 'session/ must not import orchestration/' },
  { refuses: ({ from, to }) => within(from, 'orchestration') && within(to, 'session'), why: 'orchestration/ must not import session/' },
  { refuses: ({ from, to }) => within(from, 'delivery') && (within(to, 'session') || within(to, 'orchestration')), why: 'delivery/ must not import session/ or orchestration/' },
  { refuses: ({ from, to }) => within(from, 'session') && to === SESSION_OBJECT, why: 'a session stage reads the session core (wiring/session-core.ts), never the object' },
]

/** The session's composition: its stages are handed the core port it builds, so none imports it. */
const SESSION_OBJECT = 'objects/session/wiring/session-object.ts'

function within(path: string, dir: string): boolean {
  return path.startsWith(`objects/${dir}/`)
}

/** Every broken rule among `edges`, as `from → to: why`. */
function violations(edges: Edge[]): string[] {
  return edges.flatMap((edge) => RULES.filter((rule) => rule.refuses(edge)).map((rule) => `${edge.from} → ${edge.to}: ${rule.why}`))
}

function sources(dir: string): string[] {
  return readdirSync(join(ROOT, dir), { withFileTypes: true }).flatMap((entry) => {
    const path = `${dir}/${entry.name}`
    if (entry.isDirectory()) return sources(path)
    return /\.(ts|tsx|mts|js|mjs)$/.test(entry.name) && !entry.name.endsWith('.d.ts') ? [path] : []
  })
}

/**
 * `import … from`, `export … from` and `import '…'` at the start of a line (a comment's line starts
 * with `*` or `//`, so an `@example` is not read as an import), over as many lines as the braces take.
 */
const STATIC = /^[ \t]*(?:import|export)\s+(?:type\s+)?(?:[\w$]+\s*,?\s*)?(?:\{[^}]*\}|\*(?:\s+as\s+[\w$]+)?)?\s*(?:from\s*)?['"]([^'"]+)['"]/gm
const DYNAMIC = /\bimport\(\s*['"]([^'"]+)['"]\s*\)/g

/** The specifiers `text` imports. */
function specifiers(text: string): string[] {
  const code = text
    .split('\n')
    .filter((line) => !/^\s*(\*|\/\/|\/\*)/.test(line))
    .join('\n')
  return [...[...code.matchAll(STATIC)].map((m) => m[1]!), ...[...code.matchAll(DYNAMIC)].map((m) => m[1]!)]
}

/** The relative imports of every source file under objects/ (package imports name no file of ours). */
function importGraph(): Edge[] {
  return sources('objects').flatMap((from) =>
    specifiers(readFileSync(join(ROOT, from), 'utf8'))
      .filter((specifier) => specifier.startsWith('.'))
      .map((specifier) => ({ from, to: relative(ROOT, resolve(ROOT, dirname(from), specifier)).split('\\').join('/') })),
  )
}

describe('architecture: the import graph of objects/', () => {
  const edges = importGraph()

  it('is read whole: every layer is seen importing what it uses', () => {
    // A reader that missed imports would pass every rule below; these edges exist by design.
    expect(edges.length).toBeGreaterThan(500)
    expect(edges).toContainEqual({ from: 'objects/session/wiring/session-object.ts', to: 'objects/delivery/endpoint.ts' })
    expect(edges).toContainEqual({ from: 'objects/orchestration/orchestration-object.ts', to: 'objects/delivery/endpoint.ts' })
    expect(edges.some((e) => e.from.startsWith('objects/delivery/') && e.to.startsWith('objects/core/'))).toBe(true)
  })

  it('reads every form of import, and none in comments', () => {
    const text = [
      "import { a } from './a.ts'",
      "import type { B } from '../b.ts'",
      'import {',
      '  c,',
      '  d,',
      "} from './cd.ts'",
      "import * as e from './e.ts'",
      "export { f } from './f.ts'",
      "export * from './g.ts'",
      "import './h.ts'",
      "const i = await import('./i.ts')",
      " * import { j } from './j.ts'",
      "// import { k } from './k.ts'",
    ].join('\n')
    expect(specifiers(text)).toEqual(['./a.ts', '../b.ts', './cd.ts', './e.ts', './f.ts', './g.ts', './h.ts', './i.ts'])
  })

  it('the rules refuse each kind of forbidden import', () => {
    expect(
      violations([
        { from: 'objects/core/env.ts', to: 'worker/env.ts' },
        { from: 'objects/session/agent/agent.ts', to: 'objects/orchestration/events.ts' },
        { from: 'objects/orchestration/orchestration-object.ts', to: 'objects/session/streams.ts' },
        { from: 'objects/delivery/frames.ts', to: 'objects/session/events/air.ts' },
        { from: 'objects/session/wiring/session-object.ts', to: 'objects/delivery/endpoint.ts' },
        { from: 'objects/core/env.ts', to: 'objects/session/wiring/session-object.ts' },
        { from: 'objects/session/lineage/lineage.ts', to: 'objects/session/wiring/session-object.ts' },
        { from: 'objects/session/lineage/lineage.ts', to: 'objects/session/wiring/session-core.ts' },
      ]),
    ).toHaveLength(5)
  })

  it('no object imports the worker, sessions and orchestrations never import each other, delivery imports neither, no session stage imports the session object', () => {
    expect(violations(edges)).toEqual([])
  })
})
