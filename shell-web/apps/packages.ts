/**
 * Shell apps as ordinary app packages (docs/backends.md): the build writes one
 * for each demo app (`dist/shell/packages/<id>.json`), and a signed-in shell
 * installs them through the same API as any app. Each frame kind becomes a
 * page and its bundled script; the page names its script and style by relative
 * path, so it works wherever the server serves the package's files. Pure: used
 * by the build (Node) and by tests.
 *
 * @example
 * const pkg = appPackage(DEMO_APPS[0], { script: (kind) => read(`apps/notes/${kind}.js`), css })
 */

type Kind = 'tile' | 'tray' | 'background'

/** A shell manifest, as in the demo registry (the kernel's manifest input). */
export interface ShellApp {
  id: string
  version: string
  title: string
  description?: string
  entries: Partial<Record<Kind, string>>
  tools?: string[]
  permissions?: string[]
  agentEntrypoints?: string[]
}

/** The page of one app frame: its style sheet and its one classic script (frames cannot load modules). */
export function framePage(title: string, script: string, css: string): string {
  return `<!doctype html>\n<html lang="en">\n<head>\n<meta charset="utf-8">\n<title>${title}</title>\n<link rel="stylesheet" href="${css}">\n<script src="${script}" defer></script>\n</head>\n<body></body>\n</html>\n`
}

/** The package of `app`: a page and a script per frame kind, and the shared style sheet. */
export function appPackage(app: ShellApp, read: { script(kind: Kind): string; css: string }) {
  const kinds = (['tile', 'tray', 'background'] as const).filter((k) => app.entries[k])
  const files: Record<string, string> = { 'app.css': read.css }
  for (const kind of kinds) {
    files[`${kind}.html`] = framePage(`${app.id} ${kind}`, `${kind}.js`, 'app.css')
    // The source map is not part of the package.
    files[`${kind}.js`] = read.script(kind).replace(/\n\/\/# sourceMappingURL=\S+\s*$/, '\n')
  }
  return {
    manifest: {
      app: app.id,
      version: app.version,
      name: app.title,
      entry: `${kinds[0]}.html`,
      ...(app.description ? { description: app.description } : {}),
      entries: Object.fromEntries(kinds.map((k) => [k, `${k}.html`])),
      tools: app.tools ?? [],
      permissions: app.permissions ?? [],
      agentEntrypoints: app.agentEntrypoints ?? [],
    },
    files,
  }
}
