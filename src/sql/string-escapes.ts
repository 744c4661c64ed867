import { createLocator } from './source-position.js';

/**
 * BigQuery's escape sequences in quoted (not raw) string literals, read from the text itself.
 * sqlparser's BigQuery dialect drops the backslash of any escape it does not know: `'\d+'`
 * reached the translator as `d+` and `'\x41'` as `x41`, so a REGEXP_CONTAINS(msg, '\d+') that
 * BigQuery refuses ("Illegal escape sequence") ran as another pattern and answered other rows.
 * Each such literal's value is taken again from its text at the parser's span, with BigQuery's
 * escapes (lexical structure, "Escape sequences for string and bytes literals"), and any other
 * escape is refused as BigQuery refuses it.
 */

/** The literal kinds whose backslashes are escapes (raw, byte and dollar-quoted ones are not read here). */
const quotedKinds: Record<string, number> = {
  SingleQuotedString: 1,
  DoubleQuotedString: 1,
  TripleSingleQuotedString: 3,
  TripleDoubleQuotedString: 3,
};

const simple: Record<string, string> = {
  a: '\x07',
  b: '\b',
  f: '\f',
  n: '\n',
  r: '\r',
  t: '\t',
  v: '\v',
  '\\': '\\',
  '?': '?',
  '"': '"',
  "'": "'",
  '`': '`',
};

/** How many hex digits follow each hex escape's letter: strings have `\u` and `\U` too. */
const stringHexDigits: Record<string, number> = { x: 2, X: 2, u: 4, U: 8 };
const bytesHexDigits: Record<string, number> = { x: 2, X: 2 };

/**
 * Sets the value of every quoted string literal of `statements` (parsed from `sql`) to what
 * BigQuery reads in its text. Throws an Error worded as the parser's own (`... at Line: l,
 * Column: c`) for an escape BigQuery does not have.
 */
export function readStringEscapes(sql: string, statements: unknown): void {
  if (!sql.includes('\\')) return;
  let locate: ReturnType<typeof createLocator> | undefined;
  // biome-ignore lint/suspicious/noExplicitAny: sqlparser's untyped JSON (bigquery-ast.ts's Ast)
  const visit = (node: any): void => {
    if (Array.isArray(node)) {
      for (const child of node) visit(child);
      return;
    }
    if (!node || typeof node !== 'object') return;
    const value = node.value;
    const kind = value && typeof value === 'object' ? Object.keys(value)[0] : undefined;
    const quotes = kind === undefined ? undefined : quotedKinds[kind];
    if (quotes !== undefined && kind !== undefined && typeof value[kind] === 'string' && node.span?.start) {
      locate ??= createLocator(sql);
      const start = locate(node.span.start);
      const text = sql.slice(start + quotes, locate(node.span.end) - quotes);
      if (text.includes('\\')) value[kind] = readEscapes(text, node.span.start);
      return;
    }
    for (const child of Object.values(node)) visit(child);
  };
  visit(statements);
}

function readEscapes(text: string, at: { line: number; column: number }): string {
  let out = '';
  for (let i = 0; i < text.length; i++) {
    const char = text[i] as string;
    if (char !== '\\') {
      out += char;
      continue;
    }
    const sequence = escapeAt(text, i, stringHexDigits);
    if (sequence === undefined) throw illegal(`\\${text[i + 1] ?? ''}`, at);
    if (sequence.code > 0x10ffff || (sequence.code >= 0xd800 && sequence.code <= 0xdfff))
      throw illegal(text.slice(i, i + sequence.length), at);
    out += String.fromCodePoint(sequence.code);
    i += sequence.length - 1;
  }
  return out;
}

/**
 * The bytes of a BYTES literal's text (sqlparser gives it as written, escapes and all): characters
 * as their UTF-8 bytes, `\xhh` and `\ooo` as the byte they name, the simple escapes as theirs
 * (lexical structure: "Escape sequences for string and bytes literals"; `\u` and `\U` are for
 * strings only, and an octal escape beyond a byte, `\777`, is not one). Undefined for a sequence
 * BigQuery does not read, which the caller refuses.
 */
export function bytesOfLiteral(text: string): Buffer | undefined {
  const bytes: number[] = [];
  for (let i = 0; i < text.length; i++) {
    const char = text[i] as string;
    if (char !== '\\') {
      const code = text.codePointAt(i) as number;
      bytes.push(...Buffer.from(String.fromCodePoint(code), 'utf8'));
      if (code > 0xffff) i += 1;
      continue;
    }
    const sequence = escapeAt(text, i, bytesHexDigits);
    if (sequence === undefined || sequence.code > 0xff) return undefined;
    bytes.push(sequence.code);
    i += sequence.length - 1;
  }
  return Buffer.from(bytes);
}

/**
 * The escape at `text[i]` (a backslash), BigQuery's for both strings and bytes: the code it
 * names, not yet checked against what the literal can hold (a code point, a byte), and how many
 * characters it spans; undefined where no escape of `hexDigits` or the others begins.
 */
function escapeAt(
  text: string,
  i: number,
  hexDigits: Record<string, number>,
): { code: number; length: number } | undefined {
  const next = text[i + 1] ?? '';
  if (next in simple) return { code: (simple[next] as string).charCodeAt(0), length: 2 };
  const octal = text.slice(i + 1, i + 4);
  if (/^[0-7]{3}$/.test(octal)) return { code: Number.parseInt(octal, 8), length: 4 };
  const digits = hexDigits[next];
  if (digits === undefined) return undefined;
  const hex = text.slice(i + 2, i + 2 + digits);
  if (hex.length !== digits || !/^[0-9a-fA-F]+$/.test(hex)) return undefined;
  return { code: Number.parseInt(hex, 16), length: 2 + digits };
}

function illegal(sequence: string, at: { line: number; column: number }): Error {
  return new Error(
    `Illegal escape sequence: ${sequence} (write it as \\\\ or use a raw string, r'...') at Line: ${at.line}, Column: ${at.column}`,
  );
}
