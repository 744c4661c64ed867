import { describe, expect, it } from 'vitest';
import type { QueryResult } from '../../src/engines/query-engine.js';
import { formatOfAccept, resultFormats, splitFormatSuffix } from '../../src/rest/result-formats.js';

// Values a CSV writer gets wrong most often: a line break, quotes and a comma inside a value, an
// INT64 past 2^53, a null, a record and an array. Expected bodies written out by hand from
// RFC 4180 (records end in CRLF; a field holding CR, LF, a quote or a comma is quoted, its quotes
// doubled) and NDJSON (one JSON text per line).
const result: QueryResult = {
  columns: [
    { name: 'message', type: 'STRING' },
    { name: 'count', type: 'INT64' },
    { name: 'metadata', type: 'RECORD' },
    { name: 'ok', type: 'BOOL' },
  ],
  rows: [
    { message: 'line one\nline "two", three', count: 9007199254740993n, metadata: [{ a: 1 }], ok: true },
    { message: 'carriage\rreturn', count: null, metadata: [], ok: false },
    { message: null, count: -1, metadata: [{ b: 'x,y' }], ok: null },
  ],
};

const body = (name: keyof typeof resultFormats) => String(resultFormats[name].response.make(result).body);

describe('result formats', () => {
  it('writes CSV as RFC 4180 asks: a header, CRLF records, line breaks, quotes and commas quoted', () => {
    expect(body('csv')).toBe(
      'message,count,metadata,ok\r\n' +
        '"line one\nline ""two"", three",9007199254740993,"[{""a"":1}]",true\r\n' +
        '"carriage\rreturn",,[],false\r\n' +
        ',-1,"[{""b"":""x,y""}]",\r\n',
    );
  });

  it('writes NDJSON as one JSON object per line, INT64 with every digit', () => {
    expect(body('ndjson')).toBe(
      '{"message":"line one\\nline \\"two\\", three","count":9007199254740993,"metadata":[{"a":1}],"ok":true}\n' +
        '{"message":"carriage\\rreturn","count":null,"metadata":[],"ok":false}\n' +
        '{"message":null,"count":-1,"metadata":[{"b":"x,y"}],"ok":null}\n',
    );
  });

  it('chooses CSV or NDJSON only when Accept prefers them, else the Logflare answer', () => {
    expect(formatOfAccept(undefined)).toBe('result');
    expect(formatOfAccept('*/*')).toBe('result');
    expect(formatOfAccept('text/html')).toBe('result');
    expect(formatOfAccept('text/csv')).toBe('csv');
    expect(formatOfAccept('application/json, text/csv;q=0.5')).toBe('result');
    expect(formatOfAccept('application/json;q=0.5, text/csv')).toBe('csv');
    expect(formatOfAccept('application/x-ndjson')).toBe('ndjson');
  });

  it('splits a format suffix off a dotted reference, and nothing else', () => {
    expect(splitFormatSuffix('daily.stats.csv')).toEqual({ ref: 'daily.stats', format: 'csv' });
    expect(splitFormatSuffix('daily.stats.ndjson')).toEqual({ ref: 'daily.stats', format: 'ndjson' });
    expect(splitFormatSuffix('daily.stats.json')).toEqual({ ref: 'daily.stats', format: 'json' });
    expect(splitFormatSuffix('daily.stats')).toBeUndefined();
    expect(splitFormatSuffix('.csv')).toBeUndefined();
  });
});
