/**
 * Neuron's own Worker entry: the simplest deployment of the package, `createNeuron()` with nothing
 * added. The gate's stages and the routes are composed in worker/neuron.ts; a deployment with its own
 * tools, catalog rows or stages writes the same few lines (docs/extending.md).
 */
import { createNeuron } from './neuron.ts'

const neuron = createNeuron()

/** The Hono app (tests and benchmarks read its routes). */
export const app = neuron.app

export const { SessionObject, OrchestrationObject, LedgerObject, MeterObject, DirectoryObject, ConfigObject, GraphObject, AppShelfObject, AppBackendObject, OutboundGate } = neuron

export default app
