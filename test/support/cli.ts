/**
 * Runs the `neuron` CLI as a child process with its own config file, without
 * blocking the test process (a TCP proxy the test runs may sit between the
 * CLI and the server), and collects its exit status and output.
 */
import { spawn } from 'node:child_process'
import { join, resolve } from 'node:path'

export const ROOT = resolve(import.meta.dirname, '../..')
export const CLI = join(ROOT, 'client/cli/neuron.ts')

export interface CliResult {
  status: number | null
  stdout: string
  stderr: string
}

/**
 * @example
 * const { status, stdout } = await runCli(['history', id, '--json'], { env: { ...process.env, NEURON_CONFIG: file } })
 */
export function runCli(args: string[], options: { env: NodeJS.ProcessEnv; input?: string }): Promise<CliResult> {
  return new Promise((done) => {
    const child = spawn(process.execPath, [CLI, ...args], { cwd: ROOT, env: options.env })
    let stdout = ''
    let stderr = ''
    child.stdout.on('data', (chunk) => (stdout += chunk))
    child.stderr.on('data', (chunk) => (stderr += chunk))
    child.on('close', (status) => done({ status, stdout, stderr }))
    child.stdin.end(options.input ?? '')
  })
}
