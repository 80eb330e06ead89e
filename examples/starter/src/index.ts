import { createNeuron } from 'neuron'
import { weather } from './weather.ts'

// Neuron with one tool of this project's own; the model calls it `weather`.
const neuron = createNeuron({ tools: { weather } })

// workerd constructs the Durable Objects this module exports, by the class names wrangler.toml binds.
export const { SessionObject, OrchestrationObject, LedgerObject, MeterObject, DirectoryObject, ConfigObject, GraphObject, AppShelfObject, AppBackendObject, OutboundGate } = neuron

export default { fetch: neuron.fetch }
