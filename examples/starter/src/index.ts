import { createNeuron } from 'neuron'
import { weather } from './weather.ts'

// Neuron with one tool of this project's own (the model calls it `weather`) and one agent profile:
// a session created with `{ "agent": "forecaster" }` is told its instructions and offered that tool only.
const neuron = createNeuron({
  tools: { weather },
  agents: { forecaster: { description: 'Answers about the weather', tools: ['weather'], instructions: ['Answer with the weather tool, naming the city.'] } },
})

// workerd constructs the Durable Objects this module exports, by the class names wrangler.toml binds.
export const { SessionObject, OrchestrationObject, LedgerObject, MeterObject, DirectoryObject, ConfigObject, GraphObject, AppShelfObject, AppBackendObject, OutboundGate } = neuron

export default { fetch: neuron.fetch }
