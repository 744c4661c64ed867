import { type RuleTable, rule } from './rule.js';

/**
 * NET.HOST: the host of a URL, by the steps of GoogleSQL's reference implementation
 * (ZetaSQL's zetasql/public/functions/net.cc, `Host`), which the documentation calls a "best effort"
 * for URLs that are not RFC 3986 (https://cloud.google.com/bigquery/docs/reference/standard-sql/net_functions#nethost):
 * ASCII whitespace stripped; a leading `//` (either slash), or a scheme (text before the first `:`,
 * which `//` follows), skipped; the network location ends at the first `/ ? # \`, and starts after
 * its last `@`; a port (from the first `:`, after the brackets of an IPv6 address) dropped; leading
 * dots dropped, trailing dots kept as one; no normalization; NULL for an empty input or host.
 * Each step is one RE2 match on the text, read once as a lambda's argument.
 */
const whitespace = 'chr(32) || chr(9) || chr(10) || chr(11) || chr(12) || chr(13)';

function hostSql(url: string): string {
  const slashes = '[/\\\\][/\\\\]';
  const scheme = `^[^#/?\\\\:]*:${slashes}`;
  const afterScheme = `CASE WHEN regexp_matches(u, '^${slashes}') THEN substr(u, 3) WHEN regexp_matches(u, '${scheme}') THEN regexp_replace(u, '${scheme}', '') ELSE u END`;
  const location = `regexp_replace(regexp_extract(${afterScheme}, '^[^#/?\\\\]*'), '^.*@', '')`;
  const withoutPort = `regexp_extract(${location}, '^(\\[[^\\[\\]]*[\\[\\]]?)?[^:]*')`;
  const dots = `regexp_replace(regexp_replace(${withoutPort}, '^\\.+', ''), '\\.+$', '.')`;
  return `list_transform([trim(${url}, ${whitespace})], u -> nullif(${dots}, ''))[1]`;
}

export const netRules: RuleTable = {
  'net.host': rule(1, 1, ([url]) => hostSql(url as string)),
};
