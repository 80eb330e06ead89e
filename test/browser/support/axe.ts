/**
 * Accessibility checks with axe-core, run in the page under test. axe is evaluated through
 * Playwright (the devtools protocol), not added as a script tag, so the shell's CSP stays as
 * strict as it is served; it runs against the trusted page only (app frames are other origins).
 *
 * Serious and critical violations fail; moderate and minor ones are returned for a report.
 *
 * @example
 * const report = await axeCheck(shell.page)
 * expect(report.blocking).toEqual([])
 */
import { readFileSync } from 'node:fs'
import { createRequire } from 'node:module'
import type { Page } from 'playwright-core'

const AXE_SOURCE = readFileSync(createRequire(import.meta.url).resolve('axe-core/axe.min.js'), 'utf8')

/** One violated rule, with the elements that violate it. */
export interface AxeViolation {
  id: string
  impact: 'minor' | 'moderate' | 'serious' | 'critical' | null
  help: string
  targets: string[]
}

export interface AxeReport {
  /** Serious or critical violations: a test asserts this is empty. */
  blocking: AxeViolation[]
  /** Minor or moderate ones. */
  advisory: AxeViolation[]
  /** How many rules passed: a check that looked at nothing is no check. */
  passes: number
}

/** Runs axe-core over the trusted page (or the part of it under `selector`). */
export async function axeCheck(page: Page, selector?: string): Promise<AxeReport> {
  if (!(await page.evaluate(() => 'axe' in window))) await page.evaluate(AXE_SOURCE)
  const result = await page.evaluate(async (context) => {
    const axe = (window as unknown as { axe: { run(context: unknown, options: unknown): Promise<{ violations: Array<{ id: string; impact: string | null; help: string; nodes: Array<{ target: unknown[] }> }>; passes: unknown[] }> } }).axe
    const run = await axe.run(context ?? document, { resultTypes: ['violations'], iframes: false })
    return {
      violations: run.violations.map((v) => ({ id: v.id, impact: v.impact, help: v.help, targets: v.nodes.map((n) => n.target.map(String).join(' ')) })),
      passes: run.passes.length,
    }
  }, selector ?? null)
  const violations = result.violations as AxeViolation[]
  const blocking = violations.filter((v) => v.impact === 'serious' || v.impact === 'critical')
  return { blocking, advisory: violations.filter((v) => !blocking.includes(v)), passes: result.passes }
}
