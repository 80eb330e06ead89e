/**
 * Builds the static shell into dist/shell (git-ignored): the trusted page,
 * every app and fixture page (one IIFE bundle each: sandboxed opaque-origin
 * frames cannot load module scripts without CORS), the `_headers` file
 * that gives app pages their sandbox CSP even when opened directly, the
 * `.assetsignore` that keeps source maps and test fixtures out of a deployment, and the
 * demo apps and the sample counter as app packages (`packages/<id>.json`).
 *
 * Writes are atomic and skip unchanged files, so several `wrangler dev`
 * processes building at once never serve a half-written file.
 *
 * @example
 * node shell-web/build.ts        // or: npm run build:shell
 */
import { build } from 'esbuild'
import { existsSync, mkdirSync, readdirSync, readFileSync, renameSync, writeFileSync } from 'node:fs'
import { dirname, join, relative, resolve } from 'node:path'
import { APP_CSP } from '../objects/apps/frame-policy.ts'
import { COUNTER_APP, COUNTER_BACKEND, COUNTER_INTERFACE } from './apps/counter/app.ts'
import { appPackage, framePage, type ShellApp } from './apps/packages.ts'
import { DEMO_APPS } from './apps/registry.ts'

const SRC = import.meta.dirname
const OUT = resolve(SRC, '../dist/shell')
const ENTRY = /^(tile|tray|background|nested|racer)\.ts$/

// App frames get the same CSP here as packaged apps' files get from the server (APP_CSP).
const FIXTURE_CSP = APP_CSP.replace("connect-src 'none'", "connect-src 'none'; frame-src 'self'")
const SHELL_CSP = "default-src 'self'; script-src 'self'; style-src 'self'; img-src 'self' data:; frame-src 'self'; connect-src 'self' https:; object-src 'none'; base-uri 'none'; frame-ancestors 'none'"

const HEADERS = `/
  Content-Security-Policy: ${SHELL_CSP}
  X-Frame-Options: DENY
  Referrer-Policy: no-referrer
/index.html
  Content-Security-Policy: ${SHELL_CSP}
  X-Frame-Options: DENY
/apps/*
  Content-Security-Policy: ${APP_CSP}
  Referrer-Policy: no-referrer
/fixtures/*
  Content-Security-Policy: ${FIXTURE_CSP}
  Referrer-Policy: no-referrer
`

/** The shell's stylesheet: the page's, then each full view's (ui/<view>/<view>.css). */
const VIEW_CSS = ['ui/views.css', 'ui/orchestrations/orchestrations.css', 'ui/memory/memory.css']

const page = (title: string, script: string) => framePage(title, script, '/apps/app.css')

function pages(folder: 'apps' | 'fixtures'): { entry: string; out: string; html: string }[] {
  const root = join(SRC, folder)
  return readdirSync(root, { withFileTypes: true })
    .filter((d) => d.isDirectory())
    .flatMap((d) =>
      readdirSync(join(root, d.name))
        .filter((f) => ENTRY.test(f))
        .map((f) => {
          const name = f.replace(/\.ts$/, '')
          return { entry: join(root, d.name, f), out: `${folder}/${d.name}/${name}`, html: page(`${d.name} ${name}`, `/${folder}/${d.name}/${name}.js`) }
        }),
    )
}

/**
 * What wrangler neither uploads nor serves from dist/shell: source maps (nothing runs them) and,
 * unless the test suites ask for them (`NEURON_SHELL_FIXTURES=1`, set by test/support/wrangler.ts),
 * the test fixtures' pages. A deployment ships only what runs.
 */
function assetsIgnore(fixtures: boolean): string {
  return ['# written by shell-web/build.ts', '*.map', ...(fixtures ? [] : ['fixtures/']), ''].join('\n')
}

/** Writes only when the bytes differ, via a temp file and rename. */
function put(path: string, contents: string | Uint8Array): boolean {
  const bytes = typeof contents === 'string' ? Buffer.from(contents) : Buffer.from(contents)
  if (existsSync(path) && readFileSync(path).equals(bytes)) return false
  mkdirSync(dirname(path), { recursive: true })
  const temp = `${path}.${process.pid}.tmp`
  writeFileSync(temp, bytes)
  renameSync(temp, path)
  return true
}

const started = performance.now()
const frames = [...pages('apps'), ...pages('fixtures')]
const result = await build({
  entryPoints: [{ in: join(SRC, 'ui/main.ts'), out: 'shell' }, ...frames.map((f) => ({ in: f.entry, out: f.out }))],
  outdir: OUT,
  bundle: true,
  format: 'iife',
  target: 'es2022',
  platform: 'browser',
  sourcemap: 'linked',
  write: false,
  logLevel: 'warning',
})
let changed = 0
for (const file of result.outputFiles) changed += +put(file.path, file.contents)
changed += +put(join(OUT, 'index.html'), readFileSync(join(SRC, 'index.html')))
changed += +put(join(OUT, 'shell.css'), ['shell.css', ...VIEW_CSS].map((f) => readFileSync(join(SRC, f), 'utf8')).join('\n'))
changed += +put(join(OUT, 'apps/app.css'), readFileSync(join(SRC, 'apps/app.css')))
for (const f of frames) changed += +put(join(OUT, `${f.out}.html`), f.html)
changed += +put(join(OUT, '_headers'), HEADERS)
changed += +put(join(OUT, '.assetsignore'), assetsIgnore(process.env.NEURON_SHELL_FIXTURES === '1'))
// The demo apps as ordinary packages, which a signed-in shell installs through the API.
const bundle = (path: string) => Buffer.from(result.outputFiles.find((f) => f.path === join(OUT, path))!.contents).toString()
const css = readFileSync(join(SRC, 'apps/app.css'), 'utf8')
const read = (app: ShellApp) => ({ script: (kind: string) => bundle(`apps/${app.id}/${kind}.js`), css })
for (const app of DEMO_APPS) changed += +put(join(OUT, `packages/${app.id}.json`), JSON.stringify(appPackage(app, read(app))))
// The README's sample app with a backend, installed by whoever wants it (not a demo app).
changed += +put(join(OUT, 'packages/counter.json'), JSON.stringify({ ...appPackage(COUNTER_APP, read(COUNTER_APP)), backend: COUNTER_BACKEND, interface: COUNTER_INTERFACE }))
console.log(`shell: ${result.outputFiles.length + frames.length + DEMO_APPS.length + 7} files in ${relative(process.cwd(), OUT) || OUT}, ${changed} changed, ${Math.round(performance.now() - started)} ms`)
