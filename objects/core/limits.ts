/**
 * Every size and shape limit on what clients send, in one table. The gate and
 * the objects enforce these before anything is written; docs/api.md states them
 * per route.
 */

/** Session request bodies (create, prompt) and each WebSocket message: 1 MiB of UTF-8. */
export const MAX_BODY_BYTES = 1024 * 1024

/**
 * A body over its route's limit is read to its end and discarded before the 413 leaves
 * (worker/body-limit.ts), at most this many bytes and this long. 100 MiB is the largest body
 * Cloudflare lets reach a worker on its Free and Pro plans.
 */
export const DRAIN_MAX_BYTES = 100 * 1024 * 1024
export const DRAIN_MAX_MS = 30_000

/** The shell's lasting sign-in (docs/shell.md): a refresh credential lasts 30 days, each access token it mints 15 minutes. */
export const REFRESH_TTL_SECONDS = 30 * 24 * 3600
export const SHELL_TOKEN_TTL_SECONDS = 15 * 60
/** A refresh id retired this recently may be used once more without counting as a replay (tabs reloading together). */
export const REFRESH_ROTATION_GRACE_MS = 30_000

/** The largest page any query returns (`?limit=`). */
export const MAX_PAGE = 1000

/** One ledger append. Payloads over 1 MiB spill to the artifact store, so a request may carry more. */
export const MAX_APPEND_BYTES = 16 * 1024 * 1024

/** One schema registration body. */
export const MAX_SCHEMA_BYTES = 64 * 1024

/** Nesting of arrays and objects in any JSON a client sends (bodies and WebSocket messages). */
export const MAX_JSON_DEPTH = 64

/**
 * How many payload bytes one page of a ledger read may hold once spilled payloads are read back.
 * A page ends early when the next envelope would pass it (it always holds at least one envelope).
 */
export const PAGE_PAYLOAD_BYTES = 4 * 1024 * 1024

/** Nesting of subschemas in one registered schema. */
export const MAX_SCHEMA_DEPTH = 32

/**
 * Regular expressions from outside the code (a schema's `pattern`, `patternProperties`,
 * `format: regex`) run on RE2 (objects/ledger/pattern.ts), which takes time to compile in their
 * cost: the larger of a pattern's length and its weight (atoms times the repetitions around
 * them). One pattern's cost, the cost of all the patterns of one schema, and of all the schemas
 * of one MCP server's tool list (each compiled when the list is read).
 */
export const MAX_PATTERN_COST = 1024
export const MAX_SCHEMA_PATTERN_COST = 4096
export const MAX_MCP_PATTERN_COST = 8192

/**
 * Directory shards (objects/directory/keys.ts): the most objects that reads of unknown ids can
 * address, so the storage a flood of such reads can create is bounded by this number.
 */
export const DIRECTORY_SHARDS = 16

/**
 * Prompts admitted and not yet promoted, per session. The inbox is part of the session's
 * in-memory projection, so it is bounded; a prompt past it is 429 `INBOX_FULL`, written nowhere.
 */
export const MAX_PENDING = 1000

/** Graph and memory request bodies (nodes, edges, remember, recall, forget). Node text itself is at most 16 KiB. */
export const MAX_GRAPH_BODY = 256 * 1024

/** The largest stored-provider-key body: a vendor key is a few hundred bytes. */
export const MAX_CREDENTIAL_BYTES = 8 * 1024
/** The body of `PUT /v1/config/mcp/:server/headers`: up to 8 headers of up to 4 KiB each. */
export const MAX_MCP_HEADERS_BYTES = 40 * 1024
/** The body of `POST /v1/config/mcp/:server/oauth`: a URL, a client id and secret, scopes. */
export const MAX_MCP_OAUTH_BYTES = 8 * 1024

/**
 * What an MCP server may make a session hold (objects/tools/mcp/connection.ts): one answer as
 * read off the wire (a list page, a call's result stream), the tools of one server, their
 * listing as JSON (it is offered to the model every turn), and one call's result text, which is
 * stored. Past each, the server's answer fails with a code; nothing of it is kept.
 */
export const MAX_MCP_RESPONSE_BYTES = 4 * 1024 * 1024
export const MAX_MCP_TOOLS = 128
export const MAX_MCP_LIST_BYTES = 512 * 1024
export const MAX_MCP_RESULT_BYTES = 1024 * 1024
/** One answer of an MCP server's OAuth endpoints (metadata, registration, tokens). */
export const MAX_MCP_OAUTH_RESPONSE_BYTES = 64 * 1024

/**
 * Config instructions and skills given by URL (objects/config/instructions.ts, skills.ts): the
 * text kept of one instructions URL (the rest is never read), and one skill's JSON.
 */
export const MAX_INSTRUCTIONS_URL_BYTES = 64 * 1024
export const MAX_SKILL_URL_BYTES = 96 * 1024
/** Any answer to a config URL, as the outbound fetch bounds it (the readers above stop sooner). */
export const MAX_CONFIG_URL_RESPONSE_BYTES = 1024 * 1024

/** One app package upload (manifest, frontend files, backend module, interface): 4 MiB of UTF-8. */
export const MAX_PACKAGE_BYTES = 4 * 1024 * 1024

/** An app's backend module source: it is loaded into an isolate, so it stays small. */
export const MAX_BACKEND_BYTES = 1024 * 1024

/** Frontend files in one package, and methods in one backend interface. */
export const MAX_PACKAGE_FILES = 256
export const MAX_INTERFACE_METHODS = 64

/** One backend call's body (method and input), one state value, and outbound grants per installation. */
export const MAX_CALL_BYTES = 256 * 1024
export const MAX_GRANTS = 64

/**
 * Uploaded tool modules (objects/modules/, docs/extending.md): one upload as canonical JSON (its code
 * is at most `MAX_BACKEND_BYTES`, as an app backend's), its tools' declarations (names, descriptions,
 * schemas: they ride in the version's envelope, so well under a row), tools per module, origins
 * a module may list, modules a principal keeps at once (a session holds every current version's
 * declarations, so at most 16 × 128 KiB), and one call's answer in bytes of JSON.
 */
export const MODULE_LIMITS = { bytes: MAX_BACKEND_BYTES + 256 * 1024, toolsBytes: 128 * 1024, tools: 32, origins: 16, modules: 16, outputBytes: 256 * 1024 } as const

/** Host tools (objects/session/host-tools/host-tools.ts): tools one socket may offer at once. */
export const MAX_HOST_TOOLS = 64

/** Host tools: sockets of one session that may hold an offer at once (offers live in the session's memory). */
export const MAX_HOST_SOCKETS = 8

/** Host tools: one offer's tools as JSON; the offer is stored per socket, so it is bounded well under a row. */
export const MAX_HOST_OFFER_BYTES = 256 * 1024

/** Host tools: one tool's description. */
export const MAX_HOST_DESCRIPTION = 4096

/** Host tools: one progress message's `progress`, as JSON. */
export const MAX_HOST_PROGRESS_BYTES = 4 * 1024

/** Host tools: the shortest interval between two progress messages of one call. */
export const HOST_PROGRESS_INTERVAL_MS = 50

/** Host tools: calls open at once on one socket; a call past it fails `HOST_BUSY`. */
export const MAX_HOST_CALLS_PER_SOCKET = 16

/** Host tools: how long a host has to answer a call (the environment's `HOST_CALL_TIMEOUT_MS` overrides it). */
export const HOST_CALL_TIMEOUT_MS = 120_000

/**
 * What app backend code may use (docs/backends.md#bounds). `cpuMs` and `subRequests` are handed to
 * the Worker Loader at every load and on every call's entrypoint (the lower of the two applies);
 * Cloudflare enforces them per invocation, and a backend past either throws. Local workerd drops
 * them unread (`getEntrypointResolved` in workerd's server.c++ ignores its `limits`; measured here:
 * a 2 s busy loop and six fetches passed under 50 ms and 3), so locally `SANDBOX_LIMITS` stand in.
 * Memory is the platform's per isolate (128 MB on Cloudflare), not settable per load. `wallMs` the
 * kernel enforces itself, everywhere: a call that has not answered by then is 504 `BACKEND_TIMEOUT`
 * and its writes are dropped; a method may declare a shorter `timeoutMs`, never a longer one.
 * `loadMs` bounds the upload check (loading a module and listing its functions) the same way.
 */
export const BACKEND_LIMITS = { cpuMs: 1_000, subRequests: 50, wallMs: 30_000, loadMs: 10_000 } as const

/**
 * The local stand-ins for Cloudflare's bounds (`npm start`, scripts/sandbox.ts). Backends run in a
 * workerd process of their own, because a busy loop in any isolate of a workerd process holds the
 * whole process (one thread) and a full heap aborts it. Its supervisor kills and restarts it when it
 * has not answered a ping for `stallMs` (a backend holding the CPU: the stand-in for `cpuMs`), when
 * its resident memory passes `memoryMb` (ArrayBuffers live outside the V8 heap), and when it aborts
 * on a V8 heap past `heapMb` per isolate (`--max-old-space-size`, the stand-in for 128 MB); it
 * checks every `pollMs`.
 */
export const SANDBOX_LIMITS = { stallMs: 2_000, heapMb: 128, memoryMb: 512, pollMs: 100 } as const

/** What one update may stage before it commits: its writes are held until the method answers. */
export const MAX_UPDATE_WRITE_BYTES = 4 * 1024 * 1024

/**
 * Orchestrations: decisions one turn of the decision loop records before it gives the thread
 * back; the rest follow on a later turn (and the 2 s tick carries them over an eviction). A
 * 200-package plan with no edges is 200 assignments: 13 turns of at most this many.
 */
export const ORCHESTRATION_DECISIONS_PER_TURN = 16

/**
 * Orchestrations: how long a package waits for a human's clearance before it fails
 * `CLEARANCE_EXPIRED` (its dependents are then blocked and the orchestration can finish). The
 * default, and the most a plan may ask for (`clearanceTimeoutMs`, at least 1 s).
 */
export const CLEARANCE_TIMEOUT_MS = 24 * 60 * 60 * 1000

/**
 * A session's workspace (docs/workspace.md#limits): the files tools read and change. Each bound is
 * checked before anything is written; a change past one is refused whole with its code
 * (`FILE_TOO_LARGE`, `WORKSPACE_FULL`, `PATH_INVALID`). A file is held whole in memory while a tool
 * edits or patches it (old and new text at once), so `fileBytes` stays far below the isolate's
 * 128 MB; the tree's own size is storage, never memory. Paths are measured in UTF-8 bytes.
 */
export const WORKSPACE_LIMITS = {
  /** One file's content. */
  fileBytes: 8 * 1024 * 1024,
  /** Files in one workspace (directories are implicit and not counted). */
  files: 20_000,
  /** The sum of every file's size. */
  treeBytes: 512 * 1024 * 1024,
  /** A whole path, relative to the workspace root. */
  pathBytes: 1024,
  /** One segment (a file or directory name), as POSIX's NAME_MAX. */
  segmentBytes: 255,
  /** Directory depth. */
  depth: 64,
} as const

/**
 * What one search or patch may take (objects/workspace/search.ts, patch/). A search answers at most
 * `matches` hits and reads at most `scanBytes` of file content, then says it stopped (`truncated`);
 * a regex or glob longer than `patternBytes` is refused. A patch is at most `patchBytes` of text.
 */
export const WORKSPACE_SEARCH_LIMITS = { matches: 1_000, scanBytes: 64 * 1024 * 1024, patternBytes: 4 * 1024, lineChars: 2_000 } as const
export const MAX_PATCH_BYTES = 4 * 1024 * 1024
/**
 * A one-file upload's body. The body streams to the session, which reads it as it arrives (never
 * whole: objects/workspace/upload.ts) and refuses it `FILE_TOO_LARGE` past `fileBytes`; this
 * bounds what the worker passes on before that.
 */
export const WORKSPACE_UPLOAD_BYTES = 32 * 1024 * 1024
/** Entries in an uploaded tar archive (each becomes one change of the one operation). */
export const WORKSPACE_TAR_ENTRIES = 5_000
/**
 * A tar upload's body: the whole tree's bytes, plus a header and a pax record (3 blocks) for each
 * entry and the end blocks. Streamed and read as it arrives like a one-file upload; the tree's
 * limits refuse it `WORKSPACE_FULL` as the bytes arrive.
 */
export const WORKSPACE_TAR_BYTES = WORKSPACE_LIMITS.treeBytes + WORKSPACE_TAR_ENTRIES * 3 * 512 + 20 * 512
/**
 * One call of a package's session on its orchestration's shared workspace (agent-link/workspace.ts):
 * the paths a read names (more are read in several calls) and the files one operation writes (a
 * patch over more is refused `INVALID_REQUEST`, nothing written).
 */
export const PACKAGE_WORKSPACE_CALL = { readPaths: 1_000, writes: 1_000 } as const

/**
 * The embedded shell (objects/workspace/bash/): what one command may use. It runs in the calling
 * isolate and never yields to the event loop while it runs (measured: a 10 ms interval timer fired
 * 0 times during 684 ms of a shell loop), so its bounds are how long it may hold the thread.
 * `commands` bounds the shell's steps (every simple command, loop iteration and function call):
 * one step measured 62 µs (a `:` loop) to 110 µs (a test and an arithmetic expansion) in workerd
 * here, so 5,000 steps hold the thread for about 0.3 to 0.55 s; `wallMs` is the deadline, checked
 * between steps as well (a busy loop with no step bound stopped at 320 ms of a 300 ms deadline);
 * `outputBytes` is stdout plus stderr; `callDepth` bounds recursion.
 */
export const BASH_LIMITS = { commands: 5_000, wallMs: 30_000, outputBytes: 1024 * 1024, callDepth: 64 } as const

/**
 * The permission policy (objects/permission/policy.ts): rules per layer (principal, agent profile,
 * session), and how long an `ask` may wait for its answer (`askTimeoutSeconds`: this default, within
 * these bounds) before its call fails `PERMISSION_TIMEOUT`.
 */
export const PERMISSION_LIMITS = { rules: 256, askSeconds: 3_600, minAskSeconds: 10, maxAskSeconds: 7 * 24 * 3_600 } as const

/** The JSON of a call's input a permission request carries for the person deciding; past it, a preview. */
export const PERMISSION_INPUT_BYTES = 8 * 1024

/**
 * A timer whose handler threw runs again this long after, doubling per failure in a row up to the
 * maximum (objects/core/timers.ts): the platform's own alarm retry starts at 2 s too, and a handler
 * that keeps failing wakes its object at most every ten minutes.
 */
export const TIMER_RETRY_MS = 2_000
export const TIMER_RETRY_MAX_MS = 10 * 60_000

/**
 * Agent profiles (objects/agents/): at most `count` in a config document or a deployment, each
 * at most `bytes` of JSON, naming at most `tools` tool patterns; `maxSteps` bounds a profile's
 * step limit (provider turns per prompt), as the runner's own default does (runner.ts).
 */
export const AGENT_LIMITS = { count: 32, bytes: 64 * 1024, tools: 128, instructions: 16, maxSteps: 64 } as const

/**
 * A session's title in its owner's listing (objects/directory/marks.ts): one set by its owner is at
 * most `chars` characters; one taken from the first prompt is its first line cut to `fromPrompt`.
 * A search of the listing is at most `query` characters and reads at most `scan` listings per page
 * (a sparse match answers fewer items and a cursor). A page read live from each listed session
 * (status, activity, approvals) lists at most `livePage`: one call per session shown.
 */
export const SESSION_TITLE_LIMITS = { chars: 200, fromPrompt: 80, query: 200, scan: 500, livePage: 50 } as const

/**
 * Schedules (docs/schedules.md): at most `perSession` live schedules in a session; a repeating
 * schedule (`every`, `cron`) fires at most once per `minIntervalSeconds` (cron patterns have five
 * fields, so a minute is also the finest they name); a missed-fire policy of `all` admits at most
 * `catchUp` of the fires a pause missed; a fire more than `lateMs` past its time is a missed one.
 * `idChars` keeps the message ids derived from a schedule's id (`schedule:{id}:{time}`) inside the
 * id rule; `scanFires` bounds the fire times one catch-up walks. Each fire's event and its fold's
 * memo is written `snapshotEvery` events, so a wake folds at most that many.
 */
export const SCHEDULE_LIMITS = {
  perSession: 32,
  minIntervalSeconds: 60,
  catchUp: 10,
  lateMs: 60_000,
  idChars: 64,
  scanFires: 10_000,
  snapshotEvery: 32,
  maxDelaySeconds: 366 * 24 * 3_600,
} as const

/**
 * Webhooks in (docs/schedules.md#webhooks-in): a delivery's body (JSON, checked against the depth
 * limit too), its signature's timestamp at most `windowSeconds` from the clock either way, at most
 * `perSession` hooks, a template of at most `templateChars`, delivery ids of at most `deliveryChars`.
 */
export const HOOK_LIMITS = { bodyBytes: 64 * 1024, windowSeconds: 300, perSession: 16, templateChars: 16 * 1024, deliveryChars: 64 } as const
