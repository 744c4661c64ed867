/**
 * The text of a BigQuery JSON value (bigQueryJsonText), and the JSON values it is read into. GoogleSQL's JSON type holds an object's members in a map
 * (ZetaSQL's JSONValue is nlohmann::json, whose objects are std::map<std::string, ...>), so it
 * writes them ordered by key, byte by byte of their UTF-8, and keeps the first of duplicate keys
 * (the parser's emplace): the docs' `JSON_OBJECT('foo', 10, 'bar', TRUE)` is
 * `{"bar":true,"foo":10}`, `TO_JSON(STRUCT(1 AS id, [10, 20] AS coordinates))` is
 * `{"coordinates":[10,20],"id":1}` and `JSON '{"key": 1, "key": 2}'` is `{"key":1}`. DuckDB's
 * JSON keeps members in the order written, duplicates too.
 *
 * This rewrites the text of a valid JSON value (DuckDB's) in that form: members ordered and
 * deduplicated at every depth, no whitespace, and each string, number and literal as it was
 * written, so an integer beyond 2^53 stays exact. No JSON library does this: JSON.parse keeps the
 * last of duplicate keys and reads numbers as doubles, lossless-json refuses duplicate keys. A text
 * that is not valid JSON is returned as it is.
 */
export function bigQueryJsonText(text: string): string {
  const value = readJson(text);
  return value === undefined ? text : writeJson(value);
}

/**
 * A JSON value as read: an object's members by key (the first of duplicate keys, each with its key
 * as written), an array's elements, or a scalar's text as written.
 */
export type JsonNode =
  | { readonly object: Map<string, { readonly written: string; readonly value: JsonNode }> }
  | { readonly array: JsonNode[] }
  | { readonly scalar: string };

/** The JSON value of a text, or undefined when the text is not valid JSON. */
export function readJson(text: string): JsonNode | undefined {
  try {
    const reader = new JsonReader(text);
    const value = reader.value();
    reader.skipSpace();
    return reader.atEnd() ? value : undefined;
  } catch {
    return undefined;
  }
}

/** A JSON value's text, as BigQuery's JSON type writes it: members ordered by key, no whitespace. */
export function writeJson(node: JsonNode): string {
  if ('scalar' in node) return node.scalar;
  if ('array' in node) return `[${node.array.map(writeJson).join(',')}]`;
  const keys = [...node.object.keys()].sort(utf8Order);
  return `{${keys
    .map((key) => {
      const { written, value } = node.object.get(key) as { written: string; value: JsonNode };
      return `${written}:${writeJson(value)}`;
    })
    .join(',')}}`;
}

/**
 * The order of two texts' UTF-8 bytes. JavaScript compares UTF-16 code units, which is the same
 * order but where a surrogate (a character past U+FFFF) meets U+E000 to U+FFFF.
 */
export function utf8Order(a: string, b: string): number {
  if (/[\ud800-\uffff]/.test(a) || /[\ud800-\uffff]/.test(b))
    return Buffer.compare(Buffer.from(a, 'utf8'), Buffer.from(b, 'utf8'));
  return a < b ? -1 : a > b ? 1 : 0;
}

// What the reader skips or takes at once, each from where it stands (sticky): whitespace, a
// number or literal, a string with its escapes.
const space = /[ \t\n\r]*/y;
const scalar = /[^,\]} \t\n\r]+/y;
const quoted = /"[^"\\]*(?:\\.[^"\\]*)*"/y;

/** Reads one JSON value from `text`. */
class JsonReader {
  private at = 0;

  constructor(private readonly text: string) {}

  atEnd(): boolean {
    return this.at === this.text.length;
  }

  skipSpace(): void {
    this.at = this.match(space);
  }

  /** Where `pattern` (sticky) ends when matched here; where this is when it does not match. */
  private match(pattern: RegExp): number {
    pattern.lastIndex = this.at;
    return pattern.test(this.text) ? pattern.lastIndex : this.at;
  }

  value(): JsonNode {
    this.skipSpace();
    const char = this.text[this.at];
    if (char === '{') return this.object();
    if (char === '[') return this.array();
    if (char === '"') return { scalar: this.string() };
    const start = this.at;
    this.at = this.match(scalar);
    if (this.at === start) throw new SyntaxError('a JSON value expected');
    return { scalar: this.text.slice(start, this.at) };
  }

  private expect(char: string): void {
    this.skipSpace();
    if (this.text[this.at] !== char) throw new SyntaxError(`${char} expected`);
    this.at++;
  }

  /** Whether the next character (after whitespace) closes the container; it is consumed if so. */
  private closes(char: string): boolean {
    this.skipSpace();
    if (this.text[this.at] !== char) return false;
    this.at++;
    return true;
  }

  private string(): string {
    const start = this.at;
    this.at = this.match(quoted);
    if (this.at === start) throw new SyntaxError('a string expected');
    return this.text.slice(start, this.at);
  }

  /** Reads the elements or members up to `close`, separated by commas, one by `readOne`. */
  private each(close: string, readOne: () => void): void {
    this.at++;
    if (this.closes(close)) return;
    for (;;) {
      readOne();
      if (this.closes(close)) return;
      this.expect(',');
    }
  }

  private array(): JsonNode {
    const array: JsonNode[] = [];
    this.each(']', () => array.push(this.value()));
    return { array };
  }

  private object(): JsonNode {
    const object = new Map<string, { written: string; value: JsonNode }>();
    this.each('}', () => {
      this.skipSpace();
      if (this.text[this.at] !== '"') throw new SyntaxError('a key expected');
      const written = this.string();
      this.expect(':');
      const value = this.value();
      const key = written.includes('\\') ? (JSON.parse(written) as string) : written.slice(1, -1);
      if (!object.has(key)) object.set(key, { written, value });
    });
    return { object };
  }
}
