/**
 * What SQLite really does for a query verb: run the verb once with `storage.sql.exec` wrapped,
 * keep the statements it sent, and put each through `EXPLAIN QUERY PLAN` with its own bindings.
 * The plan tests assert that no verb scans a table the verbs must reach through a key or an index.
 *
 * @example
 * const plans = plansOf(ctx.storage, { 'by topic': () => ledger.byTopic('t') })
 * expect(plans.filter((p) => /SCAN log/.test(p.plan))).toEqual([])
 */

/** One statement a verb sent, with its plan (the rows' `detail` joined by "; "). */
export interface Plan {
  verb: string
  plan: string
}

/** Runs each verb once and explains every statement it sent that `keep` selects. */
export function plansOf(storage: DurableObjectStorage, verbs: Record<string, () => unknown>, keep: (query: string) => boolean = () => true): Plan[] {
  const sent: { verb: string; query: string; bindings: unknown[] }[] = []
  const sql = storage.sql
  const exec = sql.exec
  let verb = ''
  sql.exec = function (query: string, ...bindings: unknown[]) {
    sent.push({ verb, query, bindings })
    return exec.call(sql, query, ...bindings)
  } as typeof sql.exec
  try {
    for (const [name, run] of Object.entries(verbs)) {
      verb = name
      run()
    }
  } finally {
    sql.exec = exec
  }
  return sent
    .filter(({ query }) => keep(query))
    .map(({ verb, query, bindings }) => ({
      verb,
      plan: sql.exec<{ detail: string }>(`explain query plan ${query}`, ...bindings).toArray().map((r) => r.detail).join('; '),
    }))
}
