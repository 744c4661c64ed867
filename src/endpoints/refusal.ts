import { relative, sep } from 'node:path';

/**
 * An endpoint that was not served, and why: a refused endpoint never takes the others down (a
 * strict setting turns any refusal into a refusal of the whole directory, for deploy pipelines).
 * `file` is relative to the queries directory and `reason` names no absolute path, so a refusal
 * can be shown on the public `/health`.
 */
export interface Refusal {
  /** The endpoint's name (its file stem where the contract does not say). */
  readonly endpoint: string;
  /** The file to change, relative to the queries directory. */
  readonly file: string;
  /** Where in it, 1-based, when the problem has a place (a YAML key, a SQL construct). */
  readonly line?: number;
  readonly column?: number;
  /** What is wrong and which key to change. */
  readonly reason: string;
}

/**
 * The refusals of an endpoint from a problem message of the loader, one per line: a line that
 * starts with a file of the directory (`/dir/x.sql: ...`, or `/dir/x.sql:3:11: ...` with its
 * line and column) names that file, any other line the endpoint's contract. Every other mention
 * of the directory becomes relative.
 */
export function refusalsOf(
  queriesDir: string,
  endpoint: string,
  contractFile: string,
  message: string,
): Refusal[] {
  const prefix = queriesDir.endsWith(sep) ? queriesDir : `${queriesDir}${sep}`;
  return message
    .split('\n')
    .filter((line) => line.trim() !== '')
    .map((line) => {
      const named = /^(\S+?)(?::(\d+):(\d+))?: (.*)$/s.exec(line);
      const file = named?.[1]?.startsWith(prefix) === true ? named[1] : (undefined as string | undefined);
      const reason = file === undefined ? line : (named?.[4] ?? line);
      return {
        endpoint,
        file: relative(queriesDir, file ?? contractFile),
        ...(file !== undefined && named?.[2] !== undefined
          ? { line: Number(named[2]), column: Number(named[3]) }
          : {}),
        reason: reason.split(prefix).join(''),
      };
    });
}

/** A refusal as one line of a log or of `queries check`: `file: reason` or `file:line:column: reason`. */
export function refusalLine(refusal: Refusal): string {
  const at = refusal.line === undefined ? '' : `:${refusal.line}:${refusal.column}`;
  return `${refusal.file}${at}: ${refusal.reason}`;
}

/**
 * An error a face raises while it is built from a snapshot when one endpoint cannot be served
 * (its GraphQL type name is taken by another shape): the snapshot is served without it.
 */
export class EndpointRefusedError extends Error {
  override readonly name = 'EndpointRefusedError';
  constructor(
    readonly endpoint: string,
    /** The contract file to change, absolute, as the endpoint holds it. */
    readonly contractFile: string,
    message: string,
  ) {
    super(message);
  }
}

export function isEndpointRefusedError(error: unknown): error is EndpointRefusedError {
  return error instanceof Error && error.name === 'EndpointRefusedError';
}
