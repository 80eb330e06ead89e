import journal from './meta/_journal.json';
import m0000 from './0000_init.sql';
import m0001 from './0001_memory_fts.sql';
import m0002 from './0002_graph_drops_unused_log_indexes.sql';
import m0003 from './0003_graph_ledger_rows.sql';
import m0004 from './0004_edge_without_rowid.sql';

  export default {
    journal,
    migrations: {
      m0000,
m0001,
m0002,
m0003,
m0004
    }
  }
  