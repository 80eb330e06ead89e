/**
 * Every bound the bus enforces, in one place. The kernel enforces them; the SDK
 * checks the same numbers before sending so honest apps fail early and locally.
 *
 * @example
 * if (bytes > LIMITS.maxPayloadBytes) return fail('PAYLOAD_TOO_LARGE', '...')
 */
export const LIMITS = {
  /** Serialized JSON size of an action payload, a result or a tool's arguments. */
  maxPayloadBytes: 1024 * 1024,
  /** Nesting depth of any payload. */
  maxDepth: 64,
  /**
   * Values (objects, arrays and leaves) in one payload. Bytes alone do not bound the work: under
   * 1 MiB fit 349,000 empty objects, which took Chromium 1 s to read on the loaded test machine.
   */
  maxPayloadNodes: 32_768,
  /** Ordinary routed calls (tools.call, tools.list) one source endpoint may have open. */
  maxInFlightPerSource: 8,
  /** Hint returned with TOO_MANY_IN_FLIGHT. */
  retryAfterMs: 100,
  defaultTimeoutMs: 30_000,
  maxTimeoutMs: 300_000,
  /** Discovery (tools.describe) is answered by the endpoint itself, quickly. */
  describeTimeoutMs: 5_000,
  maxProgressBytes: 64 * 1024,
  maxProgressEvents: 2_000,
  /** Progress one endpoint may send at once across all its calls, refilled per second (the SDK holds back the excess, latest value first). */
  progressBurst: 256,
  progressPerSecond: 256,
  /**
   * Messages of one endpoint the kernel drops or refuses without doing the work (progress over
   * its rate, late answers, malformed messages, calls over the in-flight or time budget) within a
   * second, past which the endpoint is disconnected: closing its port discards what it queued.
   */
  maxStrikesPerSecond: 512,
  /**
   * Messages of one endpoint waiting for the kernel at once (every message counts, whatever it is
   * and whether it succeeds; measured by a probe through the page's queue, backlog.ts). Past it the
   * endpoint is disconnected: closing its port discards the rest, which other apps would wait behind.
   */
  maxQueuedPerEndpoint: 512,
  /** A refused message that cost the trusted page this long to read and check disconnects its sender (it was sent to cost). */
  maxRefusedMessageMs: 100,
  maxResidentBackgrounds: 32,
  /** One attachment (an ArrayBuffer transferred beside a call or its result). */
  maxAttachmentBytes: 16 * 1024 * 1024,
  /** Attachment bytes one endpoint session may have in flight (its calls' and its answers'). */
  maxAttachmentBytesPerEndpoint: 32 * 1024 * 1024,
  /** Attachment bytes in flight in the whole shell, shared fairly between the apps holding them. */
  maxAttachmentBytesGlobal: 64 * 1024 * 1024,
  /** A call holding an attachment ends by then at the latest (TIMEOUT), whatever timeout it asked for. */
  maxAttachmentHoldMs: 60_000,
  /**
   * A call to an installed app's background that has not finished connecting (just installed,
   * reloading) waits this long for its handshake and the called tool's registration, never longer
   * than the call's own timeout; then UNKNOWN_TARGET.
   */
  backgroundHandshakeWaitMs: 10_000,
  /** A delegation token (attachments.delegate) lives this long and is good for one nested call. */
  delegationTtlMs: 10_000,
  /** Delegation tokens pending per endpoint session, and in the whole shell (DELEGATION_LIMIT past them). */
  maxDelegationsPerEndpoint: 4,
  maxDelegationsGlobal: 64,
  /**
   * How far apart the browser may deliver one click's activation and its focus change to the
   * trusted page (they travel separately from the frame's process), so how long a gesture check
   * waits to see its tile focused and active, and how late a focus change may follow the
   * activation it came with. A busy 2-core machine running the test suite delivers them over
   * 100 ms apart; the window grants an attacker nothing it lacks without it (attention.ts).
   */
  focusSettleMs: 500,
  /**
   * How long the browser keeps a click's or key press's transient activation (HTML's "transient
   * activation duration": 5 s in Chromium and Firefox). The kernel knows a live activation was
   * refreshed after a moment only once this long has passed since it.
   */
  activationLifespanMs: 5_000,
  /** Slack for the browser's and the page's clocks of the same gesture (activationLifespanMs + this, see attention.ts). */
  activationMarginMs: 150,
  /** How often the trusted page samples its activation and focus (a fresh activation is told apart from a refresh). */
  attentionSampleMs: 50,
  /**
   * How near a frame's box the pointer's last position on the page must be to count as gone into
   * it: less than the tile header and grid gap around every tile, so never two tiles at once.
   */
  attentionPointerSlackPx: 24,
  /** Gesture checks of one endpoint that may wait at once for a claim to resolve (USER_ACTIVATION_REQUIRED past it). */
  maxGestureWaitsPerEndpoint: 4,
  /** Text clipboard.write_text may write, UTF-8 bytes. */
  maxClipboardBytes: 256 * 1024,
  /** A tray badge is an integer in 0…maxTrayBadge (or null: none). */
  maxTrayBadge: 9_999,
  /** Wallet sessions (ethereum_provider.connect) one app may hold, and the bound on what one answer returns. */
  maxWalletSessionsPerApp: 4,
  maxWalletResultBytes: 64 * 1024,
  /** An offered package (apps.install_offer) is read up to this many bytes: the server's package body limit. */
  maxOfferBytes: 4 * 1024 * 1024 + 64 * 1024,
  /** Fetching an offered package gives up after this long (OFFER_FETCH_FAILED). */
  offerFetchTimeoutMs: 15_000,
  /** Hint returned with UI_BUSY: the person takes seconds, not milliseconds, to answer a dialog. */
  uiBusyRetryAfterMs: 2_000,
  /**
   * After the person dismisses an app's dialog (declines, Escape, no answer), its next dialogs are
   * refused without asking for this long: by the number of dismissals in a row (the last repeats).
   */
  dialogBackoffMs: [10_000, 60_000, 600_000],
  auditEntries: 200,
  /** No single app may hold more than this share of the audit ring. */
  auditEntriesPerApp: 100,
  /** An app's refusals and denials kept ahead of ordinary entries (less than its share). */
  auditDenialsPerApp: 60,
  auditSummaryChars: 160,
  maxToolsPerEndpoint: 64,
  maxSchemaBytes: 64 * 1024,
  maxSchemaDepth: 32,
  /** Schema nodes visited with every local $ref expanded: bounds kernel validation work. */
  maxSchemaNodes: 2_048,
  /** Alternatives of one anyOf / oneOf / allOf. */
  maxSchemaAlternatives: 64,
  /** Nodes of a subschema applied to every element or property (items, additionalProperties, …). */
  maxRepeatedSchemaNodes: 256,
  /** Schema-node evaluations one validation may make (VALIDATION_BUDGET past it). */
  maxValidationSteps: 50_000,
  /** Wall-clock bound on one validation, a backstop for steps that are slow (big enums, wide objects). */
  maxValidationMs: 20,
  /** Trusted-page time handling one app's messages (checks, validation, routing) it may spend at once… */
  kernelWorkBurstMs: 20,
  /** …refilled at this share of wall time (the busiest honest traffic measured needs about a third). */
  kernelWorkShare: 0.5,
  /**
   * Debt past which, while another app is using the kernel too, the endpoint whose message put its
   * app there is disconnected: only messages costly to read (the browser's own work, before any
   * check) run an app this far past its share, since its checked work is refused once it is over.
   */
  kernelWorkDebtMs: 500,
  maxTitleChars: 120,
  maxDescriptionChars: 2_000,
  maxPendingGrantsPerApp: 4,
  maxPendingGrants: 16,
  maxTilesPerWorkspace: 12,
  maxTileParams: 16,
  maxTileParamChars: 256,
  maxAppsListed: 256,
  maxErrorMessageChars: 500,
  /** Agent Mode: how long the owner's consent dialog waits before AGENT_CONSENT_TIMEOUT. */
  agentConsentTimeoutMs: 60_000,
  /** Consent dialogs one app may open within `agentConsentWindowMs` (AGENT_CONSENT_LIMIT past it). */
  agentConsentsPerWindow: 3,
  agentConsentWindowMs: 60_000,
  /** Entrypoints enabled at once across the shell (AGENT_MODE_LIMIT past it). */
  maxAgentEntrypoints: 8,
  /** Agent entrypoints one manifest may declare. */
  maxAgentEntrypointsPerApp: 8,
  /** Hint returned with OWNER_REQUIRED: the owner has to act on the trusted page first. */
  ownerRequiredRetryAfterMs: 5_000,
  /** Invocation capabilities alive at once (every routed call made for the agent holds one). */
  maxInvocations: 256,
  /** App backends: how long a consent dialog (canister.call_dialog, backend_calls.request) waits for the person. */
  backendConsentTimeoutMs: 60_000,
  /** How much of a call's input the consent dialog shows (a summary, never the whole value). */
  maxConsentSummaryChars: 400,
  /**
   * An attachment beside canister.*_self reaches the backend as base64url text in the input; the
   * server takes a call body of at most 256 KiB, so the bytes stay well under it.
   */
  maxBackendAttachmentBytes: 160 * 1024,
  /** Derivation paths one manifest may declare for vetkeys.derive. */
  maxVetkeyPaths: 8,
} as const
