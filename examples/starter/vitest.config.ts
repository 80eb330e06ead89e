import { cloudflareTest } from '@cloudflare/vitest-plugin'
import { defineConfig } from 'vitest/config'
import { testAuth } from './test/keys.ts'
import { startWeatherFake } from './test/weather-fake.ts'

// The test runs inside workerd with this project's wrangler.toml, its tool calling a real loopback server.
const bindings = { ...(await testAuth()), WEATHER_API_URL: await startWeatherFake() }

export default defineConfig({
  plugins: [cloudflareTest({ wrangler: { configPath: './wrangler.toml' }, miniflare: { bindings } })],
  test: {
    include: ['test/**/*.test.ts'],
    // The first request imports all of Neuron into the isolate: up to tens of seconds on a busy machine.
    testTimeout: 60_000,
    // Neuron's objects log (audit lines) after a test returns; relayed logs can outlive a closing worker.
    disableConsoleIntercept: true,
  },
})
