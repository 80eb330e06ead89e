/**
 * App manifests: what an installed app is, which pages it runs, which tools it
 * may expose and which other apps it may ask to call. Everything in a manifest
 * is untrusted metadata except what the kernel enforces from it (entry paths,
 * declared tools, declared permissions).
 *
 * @example
 * const manifest = parseManifest({
 *   id: 'notes', version: '1.0.0', title: 'Notes',
 *   entries: { tile: '/apps/notes/tile', background: '/apps/notes/background' },
 *   tools: ['notes_search'], permissions: [], agentEntrypoints: ['notes_search'],
 * })
 */
import { TOOL_NAME, hasExactKeys, isRecord } from '../../protocol/envelope.ts'
import { APP_ID } from '../../protocol/endpoint-id.ts'
import { LIMITS } from '../../protocol/limits.ts'

export interface AppManifest {
  id: string
  version: string
  title: string
  description: string
  entries: { tile?: string; tray?: string; background?: string }
  /** Tool names the app's endpoints may expose. */
  tools: string[]
  /** App ids this app may ask the person for a grant on. */
  permissions: string[]
  /**
   * Agent entrypoints: exact tools of the app's resident background that the owner may enable for
   * an agent (Agent Mode). Each is one of `tools`; an app without a background declares none.
   */
  agentEntrypoints: string[]
  /** Derivation paths the app may ask keys for (vetkeys.derive); any other path is refused. */
  vetkeys: string[]
}

/** A key's derivation path: printable, no spaces, at most 128 characters. */
const VETKEY_PATH = /^[A-Za-z0-9_.:\/-]{1,128}$/

/** Same-origin paths under the shell's app folders; no traversal, no query. */
const ENTRY = /^\/(apps|fixtures)\/[a-z0-9-]+(\/[a-z0-9-]+)*$/
/**
 * A file of an installed package, served to frames by the server (`/app-frames/<token>/<file>`,
 * the token naming one person's package); no `.` or `..` segment, so it never leaves its package.
 */
const PACKAGE_ENTRY = /^\/app-frames\/[0-9a-f]{64}\.[A-Za-z0-9_-]{1,400}\.[A-Za-z0-9_-]{43}\/(?!\.{1,2}(\/|$))[A-Za-z0-9_-][A-Za-z0-9._-]*(\/(?!\.{1,2}(\/|$))[A-Za-z0-9._-]+)*$/

/** Is `path` a place an app frame may be loaded from? */
export function isEntryPath(path: unknown): path is string {
  return typeof path === 'string' && (ENTRY.test(path) || (PACKAGE_ENTRY.test(path) && path.length <= 1024))
}

/** Returns the normalized manifest, or throws with the first problem. */
export function parseManifest(input: unknown): AppManifest {
  if (!isRecord(input)) throw new Error('manifest: must be an object')
  if (!hasExactKeys(input, ['id', 'version', 'title', 'entries'], ['description', 'tools', 'permissions', 'agentEntrypoints', 'vetkeys'])) {
    throw new Error('manifest: unexpected or missing keys')
  }
  const { id, version, title, entries } = input
  const description = input.description ?? ''
  const tools = input.tools ?? []
  const permissions = input.permissions ?? []
  const agentEntrypoints = input.agentEntrypoints ?? []
  const vetkeys = input.vetkeys ?? []
  if (typeof id !== 'string' || !APP_ID.test(id)) throw new Error(`manifest: id must match ${APP_ID}`)
  if (id === 'agent') throw new Error('manifest: "agent" is the id of the agent caller')
  if (typeof version !== 'string' || !/^[0-9A-Za-z.+-]{1,32}$/.test(version)) throw new Error('manifest: bad version')
  if (typeof title !== 'string' || title.length < 1 || title.length > LIMITS.maxTitleChars) throw new Error('manifest: bad title')
  if (typeof description !== 'string' || description.length > LIMITS.maxDescriptionChars) throw new Error('manifest: bad description')
  if (!isRecord(entries) || !hasExactKeys(entries, [], ['tile', 'tray', 'background'])) throw new Error('manifest: bad entries')
  for (const [kind, path] of Object.entries(entries)) {
    if (!isEntryPath(path)) throw new Error(`manifest: entry ${kind} must be a path under /apps/ or /fixtures/, or a file of an installed package`)
  }
  if (!Array.isArray(tools) || tools.length > LIMITS.maxToolsPerEndpoint || !tools.every((t) => typeof t === 'string' && TOOL_NAME.test(t))) {
    throw new Error('manifest: bad tools')
  }
  if (!Array.isArray(permissions) || permissions.length > 32 || !permissions.every((p) => typeof p === 'string' && APP_ID.test(p))) {
    throw new Error('manifest: bad permissions')
  }
  if (!Array.isArray(agentEntrypoints) || agentEntrypoints.length > LIMITS.maxAgentEntrypointsPerApp || !agentEntrypoints.every((t) => typeof t === 'string' && (tools as unknown[]).includes(t))) {
    throw new Error('manifest: agentEntrypoints must be declared tools')
  }
  if (!Array.isArray(vetkeys) || vetkeys.length > LIMITS.maxVetkeyPaths || !vetkeys.every((v) => typeof v === 'string' && VETKEY_PATH.test(v))) {
    throw new Error(`manifest: vetkeys are at most ${LIMITS.maxVetkeyPaths} derivation paths matching ${VETKEY_PATH}`)
  }
  if (agentEntrypoints.length && !(entries as Record<string, unknown>).background) throw new Error('manifest: agent entrypoints are tools of a resident background')
  return {
    id,
    version,
    title,
    description,
    entries: { ...(entries as AppManifest['entries']) },
    tools: [...tools] as string[],
    permissions: [...permissions] as string[],
    agentEntrypoints: [...agentEntrypoints] as string[],
    vetkeys: [...vetkeys] as string[],
  }
}
