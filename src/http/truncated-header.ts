/**
 * The header that says an answer's rows were cut at its endpoint's `maxRows` (or the CLI's
 * `--max-rows`): `Querygate-Truncated: true`, sent only then. Logflare's `{"result": rows}`, CSV
 * and NDJSON have no place for it in the body; `.json` and GraphQL also say it there
 * (`truncated`). Without it a client cannot tell a cut answer from a complete one.
 */
export const truncatedHeader = 'querygate-truncated';
