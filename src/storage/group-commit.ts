import type { LogSource } from '../endpoints/sources.js';
import type { LogEvent } from './log-event.js';

/**
 * Requests for one source that arrive while another commit runs are stored together in the next
 * transaction: one batch file, one INSERT and one WAL fsync for all of them (group commit).
 * Every request was checked on its own before it joined, so a group should fail only on a store
 * error; should its commit fail, its requests are committed again one by one, so the request
 * that caused it fails alone. A commit that passed but whose journal append failed fails its
 * whole group: it is in DuckDB, so none of it may be committed again.
 */
export interface GroupCommitOptions {
  /** Runs a task on the writer's queue, after the tasks queued before it. */
  readonly enqueue: (task: () => Promise<void>) => Promise<void>;
  /**
   * Commits events in one transaction; resolves once committed, with `durable`, which resolves
   * once they are journaled too (it runs beside the next task on the queue).
   */
  readonly store: (source: LogSource, events: readonly LogEvent[]) => Promise<{ durable: Promise<void> }>;
  /** The error a request gets for a failed store. */
  readonly failure: (source: LogSource, error: unknown) => unknown;
  readonly onRetry: (source: LogSource, error: unknown, requests: number) => void;
}

export type GroupCommit = (source: LogSource, events: readonly LogEvent[]) => Promise<{ ingested: number }>;

interface Member {
  readonly events: readonly LogEvent[];
  readonly resolve: (result: { ingested: number }) => void;
  readonly reject: (error: unknown) => void;
}

interface Group {
  readonly events: LogEvent[];
  readonly members: Member[];
}

export function createGroupCommit(options: GroupCommitOptions): GroupCommit {
  const gathering = new Map<string, Group>();

  /** Answers the members once their commit is journaled, off the queue. */
  const acknowledge = (source: LogSource, members: readonly Member[], durable: Promise<void>) => {
    durable.then(
      () => {
        for (const member of members) member.resolve({ ingested: member.events.length });
      },
      (error: unknown) => {
        const failure = options.failure(source, error);
        for (const member of members) member.reject(failure);
      },
    );
  };

  const run = async (source: LogSource, group: Group) => {
    gathering.delete(source.name);
    try {
      acknowledge(source, group.members, (await options.store(source, group.events)).durable);
      return;
    } catch (error) {
      if (group.members.length === 1) {
        const failure = options.failure(source, error);
        for (const member of group.members) member.reject(failure);
        return;
      }
      options.onRetry(source, error, group.members.length);
    }
    for (const member of group.members) {
      await options.store(source, member.events).then(
        ({ durable }) => acknowledge(source, [member], durable),
        (error: unknown) => member.reject(options.failure(source, error)),
      );
    }
  };

  return (source, events) =>
    new Promise((resolve, reject) => {
      let group = gathering.get(source.name);
      if (!group) {
        const created: Group = { events: [], members: [] };
        gathering.set(source.name, created);
        group = created;
        void options.enqueue(() => run(source, created));
      }
      for (const event of events) group.events.push(event);
      group.members.push({ events, resolve, reject });
    });
}
