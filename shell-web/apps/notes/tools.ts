/**
 * The notes app's tool declarations (schemas shared by the background that
 * exposes them and the pages that call them).
 *
 * @example
 * exposeTool('notes_search', NOTES_TOOLS.notes_search, handler)
 */
const NOTE_SUMMARY = {
  type: 'object',
  required: ['id', 'title', 'snippet'],
  properties: { id: { type: 'integer' }, title: { type: 'string' }, snippet: { type: 'string' } },
  additionalProperties: false,
}

export const NOTES_TOOLS = {
  notes_search: {
    title: 'Search Notes',
    description: 'Search notes owned by this app.',
    inputSchema: {
      type: 'object',
      required: ['query'],
      properties: { query: { type: 'string', maxLength: 200 }, limit: { type: 'integer', minimum: 1, maximum: 50 } },
      additionalProperties: false,
    },
    outputSchema: { type: 'object', required: ['matches'], properties: { matches: { type: 'array', items: NOTE_SUMMARY } }, additionalProperties: false },
  },
  notes_list: {
    title: 'List Notes',
    description: 'A full snapshot of the notes with its revision.',
    inputSchema: { type: 'object', additionalProperties: false },
    outputSchema: {
      type: 'object',
      required: ['revision', 'notes'],
      properties: {
        revision: { type: 'integer', minimum: 0 },
        notes: { type: 'array', items: { type: 'object', required: ['id', 'title', 'body'], properties: { id: { type: 'integer' }, title: { type: 'string' }, body: { type: 'string' } } } },
      },
      additionalProperties: false,
    },
  },
  notes_add: {
    title: 'Add a Note',
    description: 'Adds one note.',
    inputSchema: {
      type: 'object',
      required: ['title'],
      properties: { title: { type: 'string', minLength: 1, maxLength: 200 }, body: { type: 'string', maxLength: 10000 } },
      additionalProperties: false,
    },
    outputSchema: { type: 'object', required: ['id', 'revision'], properties: { id: { type: 'integer' }, revision: { type: 'integer' } }, additionalProperties: false },
  },
  notes_import: {
    title: 'Import Notes',
    description: 'Imports a batch of sample notes, reporting progress as it goes.',
    inputSchema: {
      type: 'object',
      properties: { count: { type: 'integer', minimum: 1, maximum: 500 }, delayMs: { type: 'integer', minimum: 0, maximum: 1000 } },
      additionalProperties: false,
    },
    outputSchema: { type: 'object', required: ['imported', 'revision'], properties: { imported: { type: 'integer' }, revision: { type: 'integer' } }, additionalProperties: false },
  },
  notes_export: {
    title: 'Export Notes',
    description: 'All notes as a JSON file, answered as an attachment.',
    attachments: true,
    inputSchema: { type: 'object', additionalProperties: false },
    outputSchema: { type: 'object', required: ['notes', 'bytes'], properties: { notes: { type: 'integer' }, bytes: { type: 'integer' } }, additionalProperties: false },
  },
  notes_import_file: {
    title: 'Import a Notes File',
    description: 'Imports the notes of a JSON file (the export format) sent as an attachment.',
    attachments: true,
    inputSchema: { type: 'object', additionalProperties: false },
    outputSchema: { type: 'object', required: ['imported', 'revision'], properties: { imported: { type: 'integer' }, revision: { type: 'integer' } }, additionalProperties: false },
  },
}
