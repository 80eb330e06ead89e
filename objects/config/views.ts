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

/** What a listing says about an MCP server's stored headers: never their values. */
export interface McpHeaderInfo {
  server: string
  setAt: string
  names: string[]
}

/** What the API says of an MCP server's OAuth: never a token or a secret. */
export interface McpOAuthInfo {
  server: string
  url: string | null
  authorized: boolean
  setAt: string | null
  /** When the access token expires (ISO), null when unknown or not authorized. */
  expiresAt: string | null
  /** Whether an authorization was started and waits for its callback. */
  pending: boolean
}
