-- Recall's full-text index: one row per live memory edge (rowid = the edge's seq), holding the
-- remembered node's text for BM25, and, unindexed, what ranking needs besides it.
CREATE VIRTUAL TABLE `memory_text` USING fts5(`text`, `address` UNINDEXED, `type` UNINDEXED, `time` UNINDEXED, tokenize = 'porter unicode61');
