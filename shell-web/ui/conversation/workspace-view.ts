/**
 * A session's workspace beside its conversation: the file tree (folders as disclosure widgets,
 * read a page at a time from `GET …/workspace`, at most `MAX_FILES` shown), and the file the person
 * picks, read whole up to `MAX_VIEW_BYTES`. `refresh()` reads the tree again (the conversation
 * calls it when a file tool's call ends).
 *
 * @example
 * const files = new WorkspaceView(client.session(id).workspace)
 * aside.append(files.root); await files.refresh()
 */
import type { WorkspaceFile, WorkspaceHandle } from '../../../client/workspace.ts'
import { h } from '../dom.ts'

/** Files the tree lists; a larger workspace says how to get the rest. */
const MAX_FILES = 2_000
/** A file shown in the view is cut past this (the download has it whole). */
const MAX_VIEW_BYTES = 512 * 1024

interface Folder {
  folders: Map<string, Folder>
  files: WorkspaceFile[]
}

export class WorkspaceView {
  readonly root: HTMLElement
  readonly #tree: HTMLElement
  readonly #file: HTMLElement
  #shown: string | null = null
  #reading = 0

  constructor(private readonly workspace: WorkspaceHandle) {
    this.#tree = h('div', { class: 'file-tree', 'data-file-tree': true })
    this.#file = h('section', { class: 'file-view', 'aria-label': 'File', 'data-file-view': true }, h('p', { class: 'muted' }, 'Pick a file to read it.'))
    this.root = h('section', { class: 'workspace-files', 'aria-label': 'Workspace' }, h('h3', {}, 'Workspace'), this.#tree, this.#file)
  }

  /** Reads the tree again; a file being shown is read again too. */
  async refresh(): Promise<void> {
    const reading = ++this.#reading
    const files: WorkspaceFile[] = []
    let after: string | undefined
    try {
      do {
        const page = await this.workspace.list({ limit: 500, ...(after ? { after } : {}) })
        files.push(...page.entries)
        after = page.next ?? undefined
      } while (after && files.length < MAX_FILES)
    } catch (error) {
      if (reading === this.#reading) this.#tree.replaceChildren(h('p', { class: 'error', role: 'alert' }, `The workspace was not read: ${(error as Error).message}`))
      return
    }
    if (reading !== this.#reading) return
    this.#tree.replaceChildren(files.length === 0 ? h('p', { class: 'muted' }, 'No files yet: the agent’s write and apply_patch calls put them here.') : this.#folder(tree(files.slice(0, MAX_FILES)), ''))
    if (after) this.#tree.append(h('p', { class: 'muted' }, `The first ${MAX_FILES} files are listed; download the workspace for the rest.`))
    if (this.#shown && files.some((f) => f.path === this.#shown)) await this.show(this.#shown)
  }

  /** Reads `path` into the file view. */
  async show(path: string): Promise<void> {
    this.#shown = path
    try {
      const { text, size } = await this.workspace.read(path, { offset: 0, length: MAX_VIEW_BYTES })
      this.#file.replaceChildren(
        h('h4', { 'data-path': path }, path, h('span', { class: 'muted' }, ` · ${size.toLocaleString()} bytes`)),
        h('pre', { class: 'file-text', tabindex: 0 }, text),
        size > MAX_VIEW_BYTES ? h('p', { class: 'muted' }, `The first ${MAX_VIEW_BYTES / 1024} KiB are shown.`) : '')
    } catch (error) {
      this.#file.replaceChildren(h('p', { class: 'error', role: 'alert' }, `${path} was not read: ${(error as Error).message}`))
    }
  }

  #folder(folder: Folder, prefix: string): HTMLElement {
    return h('ul', { class: 'files', 'aria-label': prefix ? `Files in ${prefix}` : 'Files' },
      ...[...folder.folders].sort(([a], [b]) => a.localeCompare(b)).map(([name, sub]) =>
        h('li', {}, h('details', { open: true }, h('summary', {}, `${name}/`), this.#folder(sub, `${prefix}${name}/`)))),
      ...folder.files.map((file) => {
        const name = file.path.slice(prefix.length)
        return h('li', {}, h('button', { type: 'button', class: 'file', 'data-path': file.path, onclick: () => void this.show(file.path) }, name))
      }))
  }
}

function tree(files: WorkspaceFile[]): Folder {
  const root: Folder = { folders: new Map(), files: [] }
  for (const file of files) {
    const parts = file.path.split('/')
    let at = root
    for (const part of parts.slice(0, -1)) {
      let next = at.folders.get(part)
      if (!next) at.folders.set(part, (next = { folders: new Map(), files: [] }))
      at = next
    }
    at.files.push(file)
  }
  return root
}
