import type { LogSource } from '../endpoints/sources.js';

/**
 * Requests for one source that arrive while another commit runs are stored together in the next
 * transaction: one journal line, one INSERT and one WAL fsync for all of them (group commit;
 * log-writer.ts may join several groups in one commit).
 * Each request joins as a batch already prepared (checked, fitted and serialised as it arrived,
 * beside the commit before, see log-writer.ts), so the commit itself only joins them. A group
 * should fail only on a store error; should `store` fail, its requests are stored again one by
 * one, so the request that caused it fails alone. A group whose `durable` fails (its journal
 * append) fails whole and is not stored again. Where `store` commits after the acknowledgement
 * (log-writer.ts), a failure of that commit is its own to handle.
 */
export interface GroupCommitOptions<Batch> {
  /** Runs a task on the writer's queue, after the tasks queued before it. */
  readonly enqueue: (task: () => Promise<void>) => Promise<void>;
  /**
   * Stores batches, in the order given, in one transaction; resolves once the queue may go on,
   * with `durable`, which resolves once they may be acknowledged (see log-writer.ts).
   */
  readonly store: (source: LogSource, batches: readonly Batch[]) => Promise<{ durable: Promise<void> }>;
  /** How many records a batch holds (what its request is answered). */
  readonly records: (batch: Batch) => number;
  /** The error a request gets for a failed store. */
  readonly failure: (source: LogSource, error: unknown) => unknown;
  readonly onRetry: (source: LogSource, error: unknown, requests: number) => void;
}

export type GroupCommit<Batch> = (source: LogSource, batch: Batch) => Promise<{ ingested: number }>;

interface Member<Batch> {
  readonly batch: Batch;
  readonly resolve: (result: { ingested: number }) => void;
  readonly reject: (error: unknown) => void;
}

export function createGroupCommit<Batch>(options: GroupCommitOptions<Batch>): GroupCommit<Batch> {
  // Per source, the members of the group waiting for its turn on the queue.
  const gathering = new Map<string, Member<Batch>[]>();

  /** Answers the members once their commit is journaled, off the queue. */
  const acknowledge = (source: LogSource, members: readonly Member<Batch>[], durable: Promise<void>) => {
    durable.then(
      () => {
        for (const member of members) member.resolve({ ingested: options.records(member.batch) });
      },
      (error: unknown) => {
        const failure = options.failure(source, error);
        for (const member of members) member.reject(failure);
      },
    );
  };

  const run = async (source: LogSource, members: readonly Member<Batch>[]) => {
    gathering.delete(source.name);
    try {
      const batches = members.map((member) => member.batch);
      acknowledge(source, members, (await options.store(source, batches)).durable);
      return;
    } catch (error) {
      if (members.length === 1) {
        const failure = options.failure(source, error);
        for (const member of members) member.reject(failure);
        return;
      }
      options.onRetry(source, error, members.length);
    }
    for (const member of members) {
      await options.store(source, [member.batch]).then(
        ({ durable }) => acknowledge(source, [member], durable),
        (error: unknown) => member.reject(options.failure(source, error)),
      );
    }
  };

  return (source, batch) =>
    new Promise((resolve, reject) => {
      let members = gathering.get(source.name);
      if (!members) {
        const created: Member<Batch>[] = [];
        gathering.set(source.name, created);
        members = created;
        void options.enqueue(() => run(source, created));
      }
      members.push({ batch, resolve, reject });
    });
}
