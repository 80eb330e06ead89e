/** The codes reading a request body can answer, shared by every route declaration. */

/** What reading any JSON body can answer (worker/read-json.ts, worker/body-limit.ts): a value the ledger cannot store is refused there too. */
export const BODY_ERRORS = ['INVALID_JSON', 'JSON_TOO_DEEP', 'NOT_JSON_COMPATIBLE', 'PAYLOAD_TOO_LARGE']

/** A body a route reads and validates. */
export const REQUEST_ERRORS = [...BODY_ERRORS, 'INVALID_REQUEST']
