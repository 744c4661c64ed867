import { QuerygateError } from '../errors.js';

/** Refuses a method the route does not answer with 405 and the `Allow` header it does. */
export function allowMethods(request: { readonly method: string }, methods: readonly string[]): void {
  if (!methods.includes(request.method)) {
    throw new QuerygateError(
      'METHOD_NOT_ALLOWED',
      `${request.method} is not allowed here; use ${methods.join(' or ')}`,
      { details: { allow: methods.join(', ') } },
    );
  }
}
