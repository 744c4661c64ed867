/** The parts of a request target that routing reads. */
export interface RequestTarget {
  readonly pathname: string;
  readonly searchParams: URLSearchParams;
}

// Origin form with nothing WHATWG URL would change: a path of characters it keeps as they are
// (not starting '//', which it reads as a host), then a query of printable ASCII without '#'.
// The characters of the query that URL percent-encodes its searchParams decode again.
const plainTarget = /^\/(?!\/)[\w\-.~!$&'()*+,;=:@%/]*(?:\?[!"$-~]*)?$/;
// Segments URL resolves away: '.', '..' and their percent-encoded spellings.
const dotSegment = /\/(?:\.|%2e){1,2}(?:[/?]|$)/i;

/**
 * The path and query of a request target, as WHATWG URL reads them against an http base. Plain
 * targets, which is what clients send, are split by hand: building a URL costs twice as much, a
 * few percent of serving a cached hit. Anything else goes through URL.
 */
export function parseRequestTarget(target: string): RequestTarget {
  if (!plainTarget.test(target) || dotSegment.test(target)) {
    return new URL(target, 'http://querygate.invalid');
  }
  const query = target.indexOf('?');
  if (query < 0) return { pathname: target, searchParams: new URLSearchParams() };
  return { pathname: target.slice(0, query), searchParams: new URLSearchParams(target.slice(query + 1)) };
}
