/**
 * What every `Executor` must do over a workspace's file port, as tests: the embedded shell runs them
 * here (bash.test.ts); a container executor runs the same function where a container can run.
 * `make` builds the executor; each case builds its own in-memory port.
 */
import { describe, expect, it } from 'vitest'
import type { Executor } from '../../objects/workspace/bash/executor.ts'
import { MemoryFiles } from '../../objects/workspace/bash/memory-files.ts'

export function executorContract(make: () => Executor): void {
  const executor = make()
  const run = (command: string, files: MemoryFiles, options: Omit<Parameters<Executor['run']>[1], 'files'> = {}) => executor.run(command, { files, ...options })

  describe(`executor contract: ${executor.name}`, () => {
    it('writes and reads workspace files through the port', async () => {
      const files = new MemoryFiles()
      const result = await run('echo hi > a.txt; cat a.txt | wc -c', files)
      expect(result).toMatchObject({ exitCode: 0, stopped: null })
      expect(result.stdout.trim()).toBe('3')
      expect(files.snapshot()).toEqual({ 'a.txt': 'hi\n' })
    })

    it('sees the files already there, with directories implied by them', async () => {
      const files = new MemoryFiles({ 'src/a.ts': 'export const a = 1\n', 'src/lib/b.ts': 'b\n', 'README.md': '# r\n' })
      expect((await run('ls', files)).stdout.split(/\s+/).filter(Boolean)).toEqual(['README.md', 'src'])
      expect((await run('ls src', files)).stdout.split(/\s+/).filter(Boolean)).toEqual(['a.ts', 'lib'])
      expect((await run('cat src/lib/b.ts', files)).stdout).toBe('b\n')
      expect((await run('grep -rn "const" .', files)).stdout).toContain('src/a.ts:1:export const a = 1')
    })

    it('runs in the working directory it is given, with its environment and stdin', async () => {
      const files = new MemoryFiles({ 'src/x.txt': 'x\n' })
      expect((await run('pwd; cat x.txt', files, { cwd: 'src' })).stdout).toBe('/workspace/src\nx\n')
      expect((await run('echo "$GREETING"', files, { env: { GREETING: 'hello' } })).stdout).toBe('hello\n')
      expect((await run('wc -c', files, { stdin: 'abcd' })).stdout.trim()).toBe('4')
      await expect(run('pwd', files, { cwd: '../..' })).rejects.toMatchObject({ code: 'PATH_ESCAPE' })
    })

    it('makes, moves, copies and removes files', async () => {
      const files = new MemoryFiles({ 'a.txt': 'a\n', 'old/x': 'x\n' })
      const result = await run('mkdir -p d/e && cp a.txt d/e/b.txt && mv a.txt c.txt && rm -r old && ls d/e', files)
      expect(result).toMatchObject({ exitCode: 0, stdout: 'b.txt\n' })
      expect(files.snapshot()).toEqual({ 'c.txt': 'a\n', 'd/e/b.txt': 'a\n' })
    })

    it('keeps bytes as bytes', async () => {
      const files = new MemoryFiles({ 'b.bin': new Uint8Array([0, 1, 255, 254]) })
      expect((await run('cp b.bin c.bin && mv c.bin d.bin && wc -c < d.bin', files)).stdout.trim()).toBe('4')
      expect([...(await files.read('d.bin'))!]).toEqual([0, 1, 255, 254])
    })

    it('reaches nothing outside the workspace through the port, and no host file at all', async () => {
      const files = new MemoryFiles({ 'a.txt': 'a\n' })
      const escape = await run('echo x > ../escaped.txt; echo y > /tmp/scratch.txt; cat /etc/passwd; cat ../../../../etc/passwd', files)
      expect(escape.exitCode).not.toBe(0)
      expect(escape.stdout).not.toMatch(/root:/)
      expect(files.snapshot()).toEqual({ 'a.txt': 'a\n' })
      expect(files.changes.filter((c) => c.by !== 'setup')).toEqual([])
    })

    it('refuses links: nothing in the tree points elsewhere', async () => {
      const files = new MemoryFiles({ 'a.txt': 'a\n' })
      const result = await run('ln -s /etc/passwd l; ln a.txt h', files)
      expect(result.exitCode).not.toBe(0)
      expect(files.snapshot()).toEqual({ 'a.txt': 'a\n' })
    })

    it('answers the workspace limits as file errors, and writes nothing past them', async () => {
      const limits = { fileBytes: 10, files: 2, treeBytes: 100 }
      const one = new MemoryFiles({}, limits)
      const big = await run("printf '%s' 0123456789A > big.txt", one)
      expect(big.exitCode).not.toBe(0)
      expect(big.stderr).toMatch(/FILE_TOO_LARGE/)
      // `>` truncates before it writes, as in any shell: the file is left empty, never past its limit.
      expect(one.snapshot()).toEqual({ 'big.txt': '' })
      const files = new MemoryFiles({}, limits)
      const many = await run('echo 1 > a; echo 2 > b; echo 3 > c', files)
      expect(many.stderr).toMatch(/WORKSPACE_FULL/)
      expect(many.exitCode).not.toBe(0)
      expect(Object.keys(files.snapshot())).toEqual(['a', 'b'])
    })

    it('stops a busy loop at its step bound', async () => {
      const result = await run('while true; do :; done', new MemoryFiles(), { limits: { commands: 500 } })
      expect(result.stopped).toBe('commands')
      expect(result.exitCode).not.toBe(0)
    })

    it('stops output at its byte bound', async () => {
      const result = await run('i=0; while true; do echo xxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxx; done', new MemoryFiles(), { limits: { outputBytes: 1000 } })
      expect(result.stopped).toBe('output')
      expect(result.stdout.length + result.stderr.length).toBeLessThanOrEqual(2000)
    })

    it('stops at its deadline', async () => {
      const result = await run('sleep 30; echo late', new MemoryFiles(), { limits: { wallMs: 200 } })
      expect(result).toMatchObject({ stopped: 'time' })
      expect(result.stdout).not.toContain('late')
    })

    it('stops when its signal aborts', async () => {
      const controller = new AbortController()
      const running = run('sleep 30; echo late', new MemoryFiles(), { signal: controller.signal })
      setTimeout(() => controller.abort(), 50)
      const result = await running
      expect(result.stopped).toBe('aborted')
      expect(result.stdout).not.toContain('late')
    })

    it('has no network', async () => {
      for (const command of ['curl http://example.com', 'wget http://example.com', 'python3 -c "print(1)"', 'node -e 1', 'sqlite3 :memory: "select 1"']) {
        const result = await run(command, new MemoryFiles())
        expect(result.exitCode, command).toBe(127)
      }
    })
  })
}
