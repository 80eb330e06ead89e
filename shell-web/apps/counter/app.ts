/**
 * The sample counter as an app package's parts: its shell manifest, its
 * backend module (run in its own Dynamic Worker, docs/backends.md) and the
 * backend's interface. The shell build adds the tile's page and bundled script
 * and writes the package to `dist/shell/packages/counter.json`, which the README
 * installs. It is not a demo app: nobody gets it until they install it. Pure data.
 *
 * @example
 * const pkg = { ...appPackage(COUNTER_APP, read), backend: COUNTER_BACKEND, interface: COUNTER_INTERFACE }
 */
import type { ShellApp } from '../packages.ts'

export const COUNTER_APP: ShellApp = { id: 'counter', version: '1.0.0', title: 'Counter', description: 'A count kept by its own backend.', entries: { tile: '/apps/counter/tile' } }

export const COUNTER_BACKEND = {
  module: `export default {
  async count(input, state) {
    return { count: (await state.get('count')) ?? 0 }
  },
  async increment(input, state) {
    const count = ((await state.get('count')) ?? 0) + input.by
    await state.put('count', count)
    return { count }
  }
}
`,
}

const COUNT = { type: 'object', properties: { count: { type: 'integer' } }, required: ['count'] }

export const COUNTER_INTERFACE = {
  methods: {
    count: { kind: 'query', input: { type: 'object', additionalProperties: false }, output: COUNT },
    increment: { kind: 'update', input: { type: 'object', properties: { by: { type: 'integer', minimum: 1, maximum: 1000 } }, required: ['by'], additionalProperties: false }, output: COUNT },
  },
}
