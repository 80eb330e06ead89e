/**
 * Where `neuron login` keeps its tokens: one JSON file, `$NEURON_CONFIG` or
 * `~/.config/neuron/config.json`, readable by its owner only. Per server URL:
 * the token.
 */
import { chmodSync, mkdirSync, readFileSync, writeFileSync } from 'node:fs'
import { homedir } from 'node:os'
import { dirname, join } from 'node:path'

export interface ServerEntry {
  token: string
}

export interface Config {
  current: string | null
  servers: Record<string, ServerEntry>
}

export function configPath(): string {
  return process.env.NEURON_CONFIG ?? join(homedir(), '.config', 'neuron', 'config.json')
}

export function readConfig(): Config {
  try {
    return JSON.parse(readFileSync(configPath(), 'utf8')) as Config
  } catch {
    return { current: null, servers: {} }
  }
}

export function writeConfig(config: Config): void {
  const path = configPath()
  mkdirSync(dirname(path), { recursive: true, mode: 0o700 })
  writeFileSync(path, `${JSON.stringify(config, null, 2)}\n`, { mode: 0o600 })
  chmodSync(path, 0o600)
}
