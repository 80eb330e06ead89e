/**
 * The demo apps the shell installs at start. Manifests are data; the kernel
 * validates them on install.
 *
 * @example
 * for (const manifest of DEMO_APPS) kernel.install(manifest)
 */
export const DEMO_APPS = [
  {
    id: 'notes',
    version: '1.0.0',
    title: 'Notes',
    description: 'Notes kept by a resident background; search, quick-add from the tray, bulk import with progress, file import and export.',
    entries: { tile: '/apps/notes/tile', tray: '/apps/notes/tray', background: '/apps/notes/background' },
    tools: ['notes_search', 'notes_list', 'notes_add', 'notes_import', 'notes_export', 'notes_import_file'],
    permissions: [],
    agentEntrypoints: ['notes_search'],
  },
  {
    id: 'planner',
    version: '1.0.0',
    title: 'Planner',
    description: 'Builds an agenda from notes found in the Notes app (needs a grant).',
    entries: { tile: '/apps/planner/tile' },
    tools: [],
    permissions: ['notes'],
  },
]
