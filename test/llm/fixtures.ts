/** Every recorded stream, by dialect, as its exact text. */
import anthropicErrorMidstream from '../fixtures/llm/anthropic/error-midstream.sse?raw'
import anthropicErrorOverloaded from '../fixtures/llm/anthropic/error-overloaded.sse?raw'
import anthropicMaxTokens from '../fixtures/llm/anthropic/max-tokens.sse?raw'
import anthropicText from '../fixtures/llm/anthropic/text.sse?raw'
import anthropicThinking from '../fixtures/llm/anthropic/thinking.sse?raw'
import anthropicThinkingRedacted from '../fixtures/llm/anthropic/thinking-redacted-tools.sse?raw'
import anthropicTools from '../fixtures/llm/anthropic/tools-parallel.sse?raw'
import anthropicTruncated from '../fixtures/llm/anthropic/truncated.sse?raw'
import compatContentFilter from '../fixtures/llm/openai-compatible/content-filter.sse?raw'
import compatError from '../fixtures/llm/openai-compatible/error.sse?raw'
import compatLength from '../fixtures/llm/openai-compatible/length.sse?raw'
import compatReasoning from '../fixtures/llm/openai-compatible/reasoning.sse?raw'
import compatText from '../fixtures/llm/openai-compatible/text.sse?raw'
import compatTools from '../fixtures/llm/openai-compatible/tools-parallel.sse?raw'
import compatTruncated from '../fixtures/llm/openai-compatible/truncated.sse?raw'
import openaiError from '../fixtures/llm/openai/error.sse?raw'
import openaiFailed from '../fixtures/llm/openai/failed.sse?raw'
import openaiIncomplete from '../fixtures/llm/openai/incomplete.sse?raw'
import openaiReasoning from '../fixtures/llm/openai/reasoning.sse?raw'
import openaiText from '../fixtures/llm/openai/text.sse?raw'
import openaiTools from '../fixtures/llm/openai/tools-parallel.sse?raw'
import openaiTruncated from '../fixtures/llm/openai/truncated.sse?raw'

export const FIXTURES = {
  anthropic: {
    'text.sse': anthropicText,
    'tools-parallel.sse': anthropicTools,
    'thinking.sse': anthropicThinking,
    'thinking-redacted-tools.sse': anthropicThinkingRedacted,
    'max-tokens.sse': anthropicMaxTokens,
    'error-overloaded.sse': anthropicErrorOverloaded,
    'error-midstream.sse': anthropicErrorMidstream,
    'truncated.sse': anthropicTruncated,
  },
  openai: {
    'text.sse': openaiText,
    'tools-parallel.sse': openaiTools,
    'reasoning.sse': openaiReasoning,
    'incomplete.sse': openaiIncomplete,
    'failed.sse': openaiFailed,
    'error.sse': openaiError,
    'truncated.sse': openaiTruncated,
  },
  'openai-compatible': {
    'text.sse': compatText,
    'tools-parallel.sse': compatTools,
    'reasoning.sse': compatReasoning,
    'length.sse': compatLength,
    'content-filter.sse': compatContentFilter,
    'error.sse': compatError,
    'truncated.sse': compatTruncated,
  },
} as const
