import type { Plugin } from 'graphql-yoga';
import { toJson } from '../http/respond.js';

/**
 * A request whose Accept names no type an answer can be written in gets a 406 that says so, in
 * JSON (RFC 9110 lets a 406 carry a body in a type the client did not ask for): yoga's own 406
 * has an empty body. After the plugins that choose how to answer, so it only fills the gap.
 */
export function useNotAcceptableAnswer(): Plugin {
  return {
    onResultProcess({ request, resultProcessor, acceptableMediaTypes, setResultProcessor }) {
      if (resultProcessor) return;
      const accept = (request.headers.get('accept') ?? '').slice(0, 200);
      const body = toJson({
        errors: [
          {
            message: `Not acceptable: the Accept header '${accept}' names none of the types this answers in (${acceptableMediaTypes.join(', ')})`,
            extensions: { code: 'BAD_REQUEST' },
          },
        ],
      });
      setResultProcessor(
        (_result, fetchAPI) =>
          new fetchAPI.Response(body, {
            status: 406,
            headers: {
              'content-type': 'application/json; charset=utf-8',
              accept: acceptableMediaTypes.join(', '),
            },
          }),
        'application/json',
      );
    },
  };
}
