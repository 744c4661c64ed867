import { mkdtemp, readFile, rm } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterEach, beforeEach, describe, expect, it } from 'vitest';
import { type IngestJournal, openIngestJournal } from '../../src/storage/ingest-journal.js';

// The journal's appends as the log writer makes them: a batch's records as one JSON array.
const records = (...ids: string[]) => [
  Buffer.from(
    JSON.stringify(
      ids.map((id) => ({
        id,
        timestamp: '1714554000000000',
        event_message: id,
        metadata: null,
        _extra: null,
      })),
    ),
  ),
];

async function journaledIds(journal: IngestJournal): Promise<string[]> {
  const ids: string[] = [];
  for await (const batch of journal.batches()) ids.push(...batch.events.map((event) => event.id));
  return ids;
}

let dir: string;
let journal: IngestJournal;

beforeEach(async () => {
  dir = await mkdtemp(join(tmpdir(), 'querygate-journal-'));
  journal = await openIngestJournal(join(dir, 'store.duckdb.journal'));
});

afterEach(async () => {
  await journal.close();
  await rm(dir, { recursive: true, force: true });
});

describe('ingest journal', () => {
  it('holds each append in the file when it resolves, those asked during another write included, in the order asked', async () => {
    const inFileWhenResolved: boolean[] = [];
    const appends = ['a', 'b', 'c', 'd'].map((id) =>
      journal.append('edge', records(id)).then(async () => {
        const text = await readFile(journal.path, 'utf8');
        inFileWhenResolved.push(text.includes(`"id":"${id}"`));
      }),
    );
    await Promise.all(appends);
    expect(inFileWhenResolved).toEqual([true, true, true, true]);
    expect(await journaledIds(journal)).toEqual(['a', 'b', 'c', 'd']);
    const lines = (await readFile(journal.path, 'utf8')).split('\n').filter(Boolean);
    expect(lines.map((line) => (JSON.parse(line) as { source: string }).source)).toEqual(
      Array(4).fill('edge'),
    );
  });

  it('keeps an append asked after the emptying, though appends asked before still wait their turn', async () => {
    // "first" is being written, "second" waits for it; the emptying is asked for, then "third".
    const first = journal.append('edge', records('first'));
    const second = journal.append('edge', records('second'));
    const cleared = journal.clear();
    const third = journal.append('edge', records('third'));
    await Promise.all([first, second, cleared, third]);
    expect(await journaledIds(journal)).toEqual(['third']);
    expect(journal.size()).toBe((await readFile(journal.path)).length);
  });
});
