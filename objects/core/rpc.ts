/**
 * Failures across a Durable Object RPC boundary.
 *
 * workerd logs every exception that leaves an RPC method as "Uncaught", with a
 * stack, even a 404 the caller expects. So an object's RPC methods answer a
 * failure as a value (`answerFailures`, declared once below each class), and
 * the worker turns that value back into the same thrown `NeuronError`
 * (`settled` on a stub, `settle` on one value). Unexpected errors are logged
 * once, inside the object, by `failureOf`.
 */
import { NeuronError } from './errors.ts'
import { type Failure, failureOf } from './failure.ts'

const FAILED = '__neuronFailure'

/** The value an RPC method answers instead of throwing. */
export interface FailedCall {
  [FAILED]: Failure
}

/**
 * Makes `methods` of `cls` answer a thrown error as a `FailedCall` value. Code
 * inside the object that calls one of them directly wraps the call in `settle`.
 *
 * @example
 * answerFailures(LedgerObject, ['append', 'get'])
 */
export function answerFailures<T extends object>(cls: { name: string; prototype: T }, methods: readonly (keyof T & string)[]): void {
  const proto = cls.prototype as Record<string, (...args: unknown[]) => unknown>
  for (const name of methods) {
    const original = proto[name]!
    const where = `${cls.name}.${name}`
    proto[name] = function (this: unknown, ...args: unknown[]) {
      try {
        const result = Reflect.apply(original, this, args)
        return result instanceof Promise ? result.catch((thrown: unknown) => failed(thrown, where)) : result
      } catch (thrown) {
        return failed(thrown, where)
      }
    }
  }
}

/**
 * The value itself, or the `NeuronError` a `FailedCall` stands for, thrown.
 *
 * @example
 * ws.send(JSON.stringify({ type: 'receipt', ...settle(this.prompt(caller, body)) }))
 */
export function settle<T>(value: T): T {
  if (typeof value === 'object' && value !== null && FAILED in value) {
    const { status, error } = (value as unknown as FailedCall)[FAILED]
    throw new NeuronError(error.code, error.message, { status, ...(error.details ? { details: error.details } : {}) })
  }
  return value
}

/**
 * A stub whose RPC methods throw the `NeuronError` their object answered as a value.
 *
 * @example
 * const view = await settled(env.SESSIONS.getByName(id)).view(caller)
 */
export function settled<T extends object>(stub: T): T {
  return new Proxy(stub, {
    get(target, name) {
      const value = Reflect.get(target, name)
      if (typeof value !== 'function') return value
      // Reflect.apply: an RPC method is itself a stub, whose `.apply` would be a remote call.
      if (name === 'fetch') return (...args: unknown[]) => Reflect.apply(value, target, args)
      return (...args: unknown[]) => Promise.resolve(Reflect.apply(value, target, args)).then(settle)
    },
  })
}

function failed(thrown: unknown, where: string): FailedCall {
  return { [FAILED]: failureOf(thrown, where) }
}
