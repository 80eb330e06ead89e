/**
 * A loopback server run as its own Node process (so a test can kill it mid-call, or so its work
 * never stalls the measuring process): the script prints its base URL on stdout once it listens.
 *
 * @example
 * const { child, url } = await startScriptServer(fileURLToPath(new URL('./mcp-server.ts', import.meta.url)))
 * child.kill('SIGKILL') // mid-call
 */
import { type ChildProcess, spawn } from 'node:child_process'

/** Spawns `script` with this Node and resolves with the first `http://127.0.0.1:PORT…` it prints. */
export function startScriptServer(script: string): Promise<{ child: ChildProcess; url: string }> {
  const child = spawn(process.execPath, [script], { stdio: ['ignore', 'pipe', 'inherit'] })
  return new Promise((resolve, reject) => {
    let out = ''
    child.stdout!.on('data', (chunk) => {
      out += chunk
      const url = /http:\/\/127\.0\.0\.1:\d+\S*/.exec(out)?.[0]
      if (url) resolve({ child, url })
    })
    child.on('exit', (code) => reject(new Error(`${script} exited (${code}) before it listened`)))
  })
}
