/**
 * The permission policy (PermissionV2's "assert policy"): before a tool with side effects acts, it
 * asks this pure decision whether the call is allowed, must be approved by a person (`ask`), or is
 * denied. The policy is rules from three layers, in order: the principal's config document, the
 * agent profile the session runs, and the session's own config (where an "always" answer adds its
 * rule). Each rule names tools (a wildcard over the tool's name, or over its source: `host:*` is every
 * host tool, `mcp:github` one MCP server) and, optionally, what the call acts on:
 * - `bash`: a wildcard over each simple command of the line (commands.ts): `git status`, `npm run *`;
 * - file tools (`read`, `write`, `edit`, `apply_patch`, `glob`, `grep`): a glob over each workspace
 *   path the call touches (glob.ts): `src/**`, `*.env`;
 * - any other tool: no `match` (the rule is about the tool).
 *
 * Precedence, decided as the agents people already configure do it:
 * 1. `deny` wins wherever it appears (Claude Code's rule: a deny is a floor no later layer, profile,
 *    session or "always" answer can lift, so a principal's `deny rm *` holds in every session);
 * 2. otherwise the last matching rule wins (opencode's rule: write the general rule first and the
 *    exception after it; a later layer refines an earlier one, so a session narrows its profile);
 * 3. no rule matches: the tool's default (`DEFAULTS`): reading is allowed, acting asks; a host tool
 *    (`host:*`) is allowed, because its host already put the call in front of its person (the
 *    shell runs an app's tool for the agent only where the owner enabled it in Agent Mode, with
 *    its own consent dialog); a rule on `host:*` makes host tools ask or denies them.
 * A call that acts on several things (a line of commands, a patch of files) gets the most
 * restrictive of their decisions; a command line whose commands cannot be read (`$(…)`) asks at least.
 *
 * Pure: no platform imports.
 */
import { RE2JS } from 're2js'
import { z } from 'zod'
import { NeuronError } from '../core/errors.ts'
import { PERMISSION_LIMITS } from '../core/limits.ts'
import { compileGlob } from '../workspace/glob.ts'
import { splitCommands } from './commands.ts'
import type { PermissionRequest } from './gate.ts'

export type Action = 'allow' | 'ask' | 'deny'

/** One rule of the config document's `permission.rules`. */
export const PermissionRule = z
  .strictObject({
    /** A wildcard (`*` = any characters) over the tool's name: `bash`, `mcp.github.*`, `memory_forget`. */
    tool: z.string().min(1).max(256).optional(),
    /** A wildcard over the tool's source: `host:*` (host tools), `mcp:github`, `builtin`. */
    source: z.string().min(1).max(256).optional(),
    /** What the call acts on: a command wildcard for `bash`, a path glob for file tools. */
    match: z.string().min(1).max(1024).optional(),
    action: z.enum(['allow', 'ask', 'deny']),
  })
  .refine((rule) => rule.tool !== undefined || rule.source !== undefined, { message: 'a rule names a tool or a source' })

export type PermissionRule = z.output<typeof PermissionRule>

/** The config document's `permission` section (principal config, agent profile, session config). */
export const PermissionSection = z.strictObject({
  rules: z.array(PermissionRule).max(PERMISSION_LIMITS.rules).optional(),
  /** How long an `ask` waits for its answer before the call fails `PERMISSION_TIMEOUT`. */
  askTimeoutSeconds: z.number().int().min(PERMISSION_LIMITS.minAskSeconds).max(PERMISSION_LIMITS.maxAskSeconds).optional(),
})

export type PermissionSection = z.output<typeof PermissionSection>

/** The JSON Schema of the `permission` section, as the config document's schema includes it. */
export function permissionJsonSchema(): Record<string, unknown> {
  return z.toJSONSchema(PermissionSection, { target: 'draft-2020-12', io: 'input' }) as Record<string, unknown>
}

/** Which layer a rule came from, for the answer's explanation. */
export type Layer = 'default' | 'principal' | 'profile' | 'session'

/** A call as the policy sees it. */
export interface PermissionCall {
  tool: string
  /** The registry's source of the tool: `builtin`, `mcp:<server>`, `host:<socket>`. */
  source: string
  /** The commands of a `bash` line, or the workspace paths a file tool touches; empty for other tools. */
  subjects?: string[]
}

export interface PermissionDecision {
  action: Action
  /** The rule that decided, or null when it was the default. */
  rule: (PermissionRule & { layer: Layer; index: number }) | null
  /** The subject that decided (the most restrictive one), when the call has subjects. */
  subject: string | null
  reason: string
}

/** Tools whose `match` is a path glob. */
export const FILE_TOOLS = new Set(['read', 'write', 'edit', 'apply_patch', 'glob', 'grep'])
/** Tools that only read: allowed unless a rule says otherwise. Everything else asks. */
export const DEFAULTS: Record<string, Action> = { read: 'allow', glob: 'allow', grep: 'allow', memory_recall: 'allow', skill: 'allow', calculator: 'allow', wait: 'allow', schedule_list: 'allow' }

const RANK: Record<Action, number> = { allow: 0, ask: 1, deny: 2 }

/**
 * A wildcard as an RE2 expression over the whole text: `*` is any characters, all else literal.
 *
 * @example
 * wildcard('mcp.github.*').testExact('mcp.github.issues') // true
 */
export function wildcard(pattern: string): RE2JS {
  return RE2JS.compile(pattern.split('*').map((part) => (part === '' ? '' : RE2JS.quote(part))).join('.*'), RE2JS.DOTALL)
}

/** A compiled rule: what it matches, kept with where it came from. */
interface Compiled {
  rule: PermissionRule & { layer: Layer; index: number }
  tool: RE2JS | null
  source: RE2JS | null
  match: ((subject: string, tool: string) => boolean) | null
}

/** The rules of every layer, compiled once per policy (a session keeps one per config version). */
export class Policy {
  private readonly rules: Compiled[]

  /**
   * @example
   * const policy = new Policy({ principal: config.permission?.rules, session: [{ tool: 'bash', match: 'git status', action: 'allow' }] })
   * policy.decide({ tool: 'bash', source: 'builtin', subjects: splitCommands('git status').commands }) // { action: 'allow', … }
   */
  constructor(layers: Partial<Record<Exclude<Layer, 'default'>, PermissionRule[] | undefined>>) {
    const ordered: [Layer, PermissionRule[] | undefined][] = [
      ['principal', layers.principal],
      ['profile', layers.profile],
      ['session', layers.session],
    ]
    this.rules = []
    for (const [layer, rules] of ordered) {
      ;(rules ?? []).forEach((rule, index) => {
        try {
          // A rule's `match` is a path glob for file tools and a command wildcard for the rest; a rule
          // whose tool is itself a wildcard may meet both, so both must read.
          const literal = rule.tool !== undefined && !rule.tool.includes('*') ? rule.tool : null
          const glob = rule.match !== undefined && (literal === null || FILE_TOOLS.has(literal)) ? compileGlob(rule.match) : null
          const command = rule.match !== undefined && (literal === null || !FILE_TOOLS.has(literal)) ? wildcard(rule.match) : null
          this.rules.push({
            rule: { ...rule, layer, index },
            tool: rule.tool === undefined ? null : wildcard(rule.tool),
            source: rule.source === undefined ? null : wildcard(rule.source),
            match: rule.match === undefined ? null : (subject, tool) => (FILE_TOOLS.has(tool) ? (glob?.test(subject) ?? false) : (command?.testExact(subject) ?? false)),
          })
        } catch (error) {
          throw new NeuronError('PERMISSION_RULE_INVALID', `${layer} permission rule ${index + 1}: ${(error as Error).message}`, { status: 400, details: { layer, index } })
        }
      })
    }
  }

  /** The decision for one call: the most restrictive over its subjects. */
  decide(call: PermissionCall): PermissionDecision {
    const subjects = call.subjects ?? []
    if (subjects.length === 0) return this.decideOne(call, null)
    let worst: PermissionDecision | null = null
    for (const subject of subjects) {
      const decision = this.decideOne(call, subject)
      if (worst === null || RANK[decision.action] > RANK[worst.action]) worst = decision
      if (worst.action === 'deny') break
    }
    return worst!
  }

  /**
   * A `bash` line's decision: each simple command judged, and a line whose commands cannot be read
   * from its text asks at least.
   *
   * @example
   * policy.decideCommand('git status && rm -rf build') // the stricter of the two commands
   */
  decideCommand(line: string, source = 'builtin'): PermissionDecision {
    const { commands, opaque } = splitCommands(line)
    const decision = this.decide({ tool: 'bash', source, subjects: commands })
    if (opaque && decision.action === 'allow') return { ...decision, action: 'ask', reason: 'the line runs a command substitution, whose command cannot be checked before it runs' }
    return decision
  }

  private decideOne(call: PermissionCall, subject: string | null): PermissionDecision {
    let last: Compiled | null = null
    for (const compiled of this.rules) {
      if (compiled.tool && !compiled.tool.testExact(call.tool)) continue
      if (compiled.source && !compiled.source.testExact(call.source)) continue
      if (compiled.match) {
        if (subject === null || !compiled.match(subject, call.tool)) continue
      }
      if (compiled.rule.action === 'deny') return { action: 'deny', rule: compiled.rule, subject, reason: `denied by ${describe(compiled.rule)}` }
      last = compiled
    }
    if (last) return { action: last.rule.action, rule: last.rule, subject, reason: `${last.rule.action} by ${describe(last.rule)}` }
    if (DEFAULTS[call.tool] === undefined && call.source.startsWith('host:')) {
      return { action: 'allow', rule: null, subject, reason: `${call.tool} is a host tool: its host asks its person (the shell's Agent Mode consent)` }
    }
    const action = DEFAULTS[call.tool] ?? 'ask'
    return { action, rule: null, subject, reason: action === 'allow' ? `${call.tool} only reads` : `${call.tool} acts, and no rule allows it` }
  }
}

function describe(rule: PermissionRule & { layer: Layer; index: number }): string {
  const what = [rule.tool && `tool ${rule.tool}`, rule.source && `source ${rule.source}`, rule.match && `match ${JSON.stringify(rule.match)}`].filter(Boolean).join(', ')
  return `the ${rule.layer}'s rule ${rule.index + 1} (${what})`
}

/**
 * The rule an "always" answer adds to the session's layer: exactly what was approved, no wider.
 * Wildcards in the subject are escaped out by quoting it as a literal command, or left as a path.
 *
 * @example
 * alwaysRule({ tool: 'bash', source: 'builtin', subjects: ['npm test'] }) // [{ tool: 'bash', match: 'npm test', action: 'allow' }]
 */
export function alwaysRules(call: PermissionCall): PermissionRule[] {
  const subjects = call.subjects ?? []
  if (subjects.length === 0) return [{ tool: call.tool, action: 'allow' }]
  // A `*` in a subject would widen the rule; such a subject is approved once, not always.
  return subjects.filter((subject) => !subject.includes('*')).map((subject) => ({ tool: call.tool, match: FILE_TOOLS.has(call.tool) ? `/${subject.replace(/[\\?[\]{}]/g, (c) => `\\${c}`)}` : subject, action: 'allow' as const }))
}

/**
 * The decision for a request: a `bash` request's subjects are command lines, judged command by
 * command (an unreadable line asks at least); any other tool's subjects are judged as they are.
 *
 * @example
 * decideRequest(policy, { tool: 'write', source: 'builtin', subjects: ['src/a.ts'], input }) // { action: 'ask', … }
 */
export function decideRequest(policy: Policy, request: PermissionRequest): PermissionDecision {
  if (request.tool === 'bash' && request.source === 'builtin') {
    let worst: PermissionDecision | null = null
    const rank = { allow: 0, ask: 1, deny: 2 }
    for (const line of request.subjects) {
      const decision = policy.decideCommand(line, request.source)
      if (worst === null || rank[decision.action] > rank[worst.action]) worst = decision
    }
    if (worst) return worst
  }
  return policy.decide({ tool: request.tool, source: request.source, subjects: request.subjects })
}
