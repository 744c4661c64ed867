import { execFileSync, spawn } from 'node:child_process';
import { appendFile, mkdtemp, readFile, rm } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { createInterface } from 'node:readline';
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

  it('cuts off a torn last line left by a crash mid-append, so the next append is read back whole', async () => {
    await journal.append('edge', records('before'));
    await journal.close();
    // Where a crash stops an append: part of a line, no newline, longer than the 64 KiB the
    // journal reads back at a time to find the last whole line (a batch of 1,000 runs to 1 MB).
    await appendFile(
      journal.path,
      `{"source":"edge","records":[{"id":"torn","event_message":"${'x'.repeat(200_000)}`,
    );
    journal = await openIngestJournal(journal.path);
    await journal.append('edge', records('after'));
    expect(await journaledIds(journal)).toEqual(['before', 'after']);
    expect(journal.size()).toBe((await readFile(journal.path)).length);
  });

  it('never writes after part of a line an append left when it failed (a full disk), so later appends stay readable', async () => {
    // A process of its own, its file-size limit (RLIMIT_FSIZE) lowered and raised by prlimit: a
    // write past it fails part way (EFBIG), as one past a full disk does (ENOSPC).
    const child = spawn(
      process.execPath,
      ['--import', 'tsx', 'test/helpers/journal-process.ts', journal.path],
      {
        cwd: join(import.meta.dirname, '../..'),
        stdio: ['pipe', 'pipe', 'inherit'],
      },
    );
    const answers = createInterface({ input: child.stdout })[Symbol.asyncIterator]();
    const ask = async (line: string) => {
      child.stdin.write(`${line}\n`);
      return (await answers.next()).value as string;
    };
    const limitFileSize = (limit: string) =>
      execFileSync('prlimit', ['--pid', String(child.pid), `--fsize=${limit}:unlimited`]);
    try {
      expect(await ask('append first 10')).toBe('ok');
      const whole = (await readFile(journal.path)).length;
      limitFileSize(String(whole + 100));
      expect(await ask('append refused 100000')).toBe('failed EFBIG');
      limitFileSize('unlimited');
      expect(await ask('append next 10')).toBe('ok');
      expect(await ask('close')).toBe('closed');
    } finally {
      child.kill();
    }
    // Read as plain JSON lines, not through the journal's reader, which skips what it cannot parse.
    const lines = (await readFile(journal.path, 'utf8')).split('\n');
    expect(lines.pop()).toBe('');
    const ids = lines.map((line) => (JSON.parse(line) as { records: { id: string }[] }).records[0]?.id);
    expect(ids).toEqual(['first', 'next']);
  });
});
