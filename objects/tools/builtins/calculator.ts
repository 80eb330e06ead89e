/**
 * `calculator`: evaluates arithmetic with a small recursive-descent parser.
 * No `eval`: the grammar is numbers, + - * / % ^, parentheses, unary minus,
 * the constants pi and e, and the functions below.
 */
import { z } from 'zod'
import { NeuronError } from '../../core/errors.ts'
import { Tool } from '../tool.ts'

const FUNCTIONS: Record<string, (...args: number[]) => number> = {
  sqrt: Math.sqrt,
  abs: Math.abs,
  round: Math.round,
  floor: Math.floor,
  ceil: Math.ceil,
  min: Math.min,
  max: Math.max,
  ln: Math.log,
  log10: Math.log10,
}
const CONSTANTS: Record<string, number> = { pi: Math.PI, e: Math.E }

export const calculator = Tool.make({
  description: 'Evaluate an arithmetic expression, e.g. "2 * (3 + 4) ^ 2" or "sqrt(2) / 2".',
  input: z.object({ expression: z.string().min(1).max(1000) }),
  output: z.object({ expression: z.string(), value: z.number() }),
  execute: ({ expression }) => ({ expression, value: evaluate(expression) }),
  toModelOutput: ({ expression, value }) => `${expression} = ${value}`,
})

/**
 * @example
 * evaluate('2 * (3 + 4) ^ 2') // 98
 */
export function evaluate(expression: string): number {
  const tokens = expression.match(/\d+(?:\.\d+)?(?:e[+-]?\d+)?|[A-Za-z_][A-Za-z0-9_]*|\S/gi) ?? []
  let at = 0
  const peek = () => tokens[at]
  const fail = (message: string): never => {
    throw new NeuronError('CALCULATOR_SYNTAX', `${message} in "${expression}"`, { details: { expression, at } })
  }
  const take = (expected?: string) => {
    const token = tokens[at++]
    if (token === undefined) fail('unexpected end')
    if (expected !== undefined && token !== expected) fail(`expected "${expected}" but found "${token}"`)
    return token!
  }
  const sum = (): number => {
    let value = product()
    while (peek() === '+' || peek() === '-') value = take() === '+' ? value + product() : value - product()
    return value
  }
  const product = (): number => {
    let value = unary()
    while (peek() === '*' || peek() === '/' || peek() === '%') {
      const op = take()
      const right = unary()
      value = op === '*' ? value * right : op === '/' ? value / right : value % right
    }
    return value
  }
  // Exponentiation binds tighter than a sign (-2^2 = -4) and associates to the right (2^3^2 = 512).
  const unary = (): number => (peek() === '-' ? (take(), -unary()) : peek() === '+' ? (take(), unary()) : power())
  const power = (): number => {
    const base = atom()
    return peek() === '^' ? (take(), base ** unary()) : base
  }
  const atom = (): number => {
    const token = take()
    if (token === '(') {
      const value = sum()
      take(')')
      return value
    }
    if (/^\d/.test(token)) return Number(token)
    const name = token.toLowerCase()
    if (Object.hasOwn(CONSTANTS, name)) return CONSTANTS[name]!
    const fn = Object.hasOwn(FUNCTIONS, name) ? FUNCTIONS[name] : undefined
    if (!fn) return fail(`unknown name "${token}"`)
    take('(')
    const args = [sum()]
    while (peek() === ',') {
      take()
      args.push(sum())
    }
    take(')')
    return fn(...args)
  }
  const value = sum()
  if (at < tokens.length) fail(`unexpected "${tokens[at]}"`)
  if (!Number.isFinite(value)) throw new NeuronError('CALCULATOR_NOT_FINITE', `"${expression}" is not a finite number`, { details: { expression } })
  return value
}
