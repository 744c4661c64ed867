/**
 * The text of a BigQuery JSON value. GoogleSQL's JSON type holds an object's members in a map
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
  try {
    const reader = new JsonReader(text);
    const value = reader.value();
    reader.skipSpace();
    return reader.atEnd() ? value : text;
  } catch {
    return text;
  }
}

/** Reads one JSON value from `text`, writing it in BigQuery's form. */
class JsonReader {
  private at = 0;

  constructor(private readonly text: string) {}

  atEnd(): boolean {
    return this.at === this.text.length;
  }

  skipSpace(): void {
    while (' \t\n\r'.includes(this.text[this.at] ?? '.')) this.at++;
  }

  value(): string {
    this.skipSpace();
    const char = this.text[this.at];
    if (char === '{') return this.object();
    if (char === '[') return this.array();
    if (char === '"') return this.string();
    const start = this.at;
    while (this.at < this.text.length && !',]} \t\n\r'.includes(this.text[this.at] as string)) this.at++;
    if (this.at === start) throw new SyntaxError('a JSON value expected');
    return this.text.slice(start, this.at);
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
    const start = this.at++;
    while (this.text[this.at] !== '"') {
      if (this.at >= this.text.length) throw new SyntaxError('unterminated string');
      this.at += this.text[this.at] === '\\' ? 2 : 1;
    }
    this.at++;
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

  private array(): string {
    const items: string[] = [];
    this.each(']', () => items.push(this.value()));
    return `[${items.join(',')}]`;
  }

  private object(): string {
    const members = new Map<string, string>();
    this.each('}', () => {
      this.skipSpace();
      if (this.text[this.at] !== '"') throw new SyntaxError('a key expected');
      const written = this.string();
      this.expect(':');
      const value = this.value();
      const key = JSON.parse(written) as string;
      if (!members.has(key)) members.set(key, `${written}:${value}`);
    });
    const ordered = [...members].map(([key, member]) => ({ bytes: Buffer.from(key, 'utf8'), member }));
    ordered.sort((a, b) => Buffer.compare(a.bytes, b.bytes));
    return `{${ordered.map(({ member }) => member).join(',')}}`;
  }
}
