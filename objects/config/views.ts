/**
 * What the config routes answer: plain shapes with no platform types, so the
 * typed client names the same ones the objects build.
 */
import type { JsonObject } from '../ledger/json.ts'

/** A version of a document; version 0 is the empty document nobody wrote. */
export interface ConfigVersion {
  version: number
  etag: string
  /** A `ConfigDocument`, as plain JSON (what crosses RPC). */
  document: JsonObject
}

/** A stored provider key as a listing shows it: which provider, and when (never the key). */
export interface CredentialInfo {
  provider: string
  setAt: string
}
