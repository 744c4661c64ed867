// Imported by the CLI before anything loads DuckDB: DuckDB's allocator (its own jemalloc) reads
// its options once, as DuckDB's library loads, from DUCKDB_JE_MALLOC_CONF.
//
// Why: DuckDB keeps the pages its queries free for 1 s, then 1 s more as pages the kernel may
// take back (MADV_FREE), counted in RSS until it does, which it does only under memory pressure.
// Studio's pages run back to back, each freeing hundreds of MB at 10M edge records, so the
// server's RSS held some 700 MiB of freed pages and peaked at 948-1,034 MiB, up to and over the
// 1 GiB it is meant to serve within (the corpus of bench/studio-sql.ts, seven runs). Handed back
// after 200 ms and at once: 810-856 MiB, the corpus in 4.5 s against 4.3-4.6 s before; handed
// back at once (0 ms), 684-700 MiB but a quarter slower. An operator's own options come after
// these, so theirs win.
process.env.DUCKDB_JE_MALLOC_CONF = ['dirty_decay_ms:200,muzzy_decay_ms:0', process.env.DUCKDB_JE_MALLOC_CONF]
  .filter(Boolean)
  .join(',');
