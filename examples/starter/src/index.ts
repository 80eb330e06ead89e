import { createNeuron } from 'neuron'
import { weather } from './weather.ts'

// One tool of this project's own (the model calls it `weather`), and one agent profile that is offered it alone.
const neuron = createNeuron({ tools: { weather }, agents: { forecaster: { tools: ['weather'], instructions: ['Answer with the weather tool, naming the city.'] } } })

// workerd constructs the Durable Objects this module exports, by the class names wrangler.toml binds.
export const { SessionObject, OrchestrationObject, LedgerObject, MeterObject, DirectoryObject, ConfigObject, GraphObject, AppShelfObject, AppBackendObject, OutboundGate } = neuron

export default { fetch: neuron.fetch }
