/**
 * The embedded shell (just-bash in this isolate) passes the executor contract over an in-memory port.
 */
import { embeddedExecutor } from '../../objects/workspace/bash/embedded.ts'
import { executorContract } from './executor-contract.ts'

executorContract(() => embeddedExecutor)
