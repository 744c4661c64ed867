// A process holding an ingest journal, told what to append on stdin, a line each: `append <id>
// <characters>` (a record of that id with a message of that many characters), answered `ok` or
// `failed <code>`; `close`, answered `closed`. For limits set on this process alone (prlimit).
// `node --import tsx test/helpers/journal-process.ts <journal path>`
import { createInterface } from 'node:readline';
import { openIngestJournal } from '../../src/storage/ingest-journal.js';

// A write past RLIMIT_FSIZE raises SIGXFSZ, whose default ends the process; ignored, the write
// fails with EFBIG instead, as a write to a full disk fails with ENOSPC.
process.on('SIGXFSZ', () => {});

const [path] = process.argv.slice(2);
if (!path) throw new Error('usage: journal-process.ts <journal path>');
const journal = await openIngestJournal(path);
for await (const line of createInterface({ input: process.stdin })) {
  const [command, id, characters] = line.split(' ');
  if (command === 'close') {
    await journal.close();
    console.log('closed');
    break;
  }
  const record = { id, timestamp: '1714554000000000', event_message: 'x'.repeat(Number(characters)) };
  await journal
    .append('edge', [Buffer.from(JSON.stringify([{ ...record, metadata: null, _extra: null }]))])
    .then(
      () => console.log('ok'),
      (error: NodeJS.ErrnoException) => console.log(`failed ${error.code}`),
    );
}
