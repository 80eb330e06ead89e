/**
 * The package's public surface (`package.json` `exports`): what a deployment imports from
 * `neuron` to compose its own Worker (docs/extending.md). Everything here is also what Neuron's
 * own built-ins are made with, so a deployment's tool keeps their contract exactly.
 *
 * @example
 * import { createNeuron, Tool } from 'neuron'
 */
export { createNeuron, type Neuron, type NeuronOptions } from './neuron.ts'
export { Tool, type ToolContext, type ToolDefinition, type ToolProgress } from '../objects/tools/tool.ts'
export { jsonSchemaTool, type JsonSchemaToolDefinition } from '../objects/tools/json-schema-tool.ts'
export { NeuronError } from '../objects/core/errors.ts'
export { BUILTIN_TOOL_NAMES, type Extensions, type ExtensionsInput } from '../objects/extend/extensions.ts'
export type { ModelRow, ProviderRow } from '../objects/llm/catalog.ts'
export type { Env } from '../objects/core/env.ts'
export type { AppEnv } from './env.ts'
