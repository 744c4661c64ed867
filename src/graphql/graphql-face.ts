import type { FastifyInstance } from 'fastify';
import type { Logger } from 'pino';
import type { Snapshot } from '../endpoints/snapshot.js';
import type { SnapshotSwaps } from '../endpoints/snapshot-swaps.js';
import { abandonSignal } from '../http/abandon-signal.js';
import { clientIdentity } from '../http/client-identity.js';
import type { Metrics } from '../metrics/metrics.js';
import type { Resolver } from '../resolve/resolver.js';
import { createFastOperations } from './fast-operation.js';
import { graphqlRoutes } from './graphql-routes.js';
import { createResponseReplay } from './response-replay.js';
import { createAnsweredMediaTypes } from './use-compiled-operations.js';
import { createQuerygateYoga, type GraphQLFaceOptions, operationContext } from './yoga.js';

export interface GraphQLFacePluginOptions {
  /** The endpoints served now; each operation gets the schema of the snapshot it began on. */
  readonly snapshot: () => Snapshot;
  /** Announces reloads: the kept responses all go, since any of them may show the old schema. */
  readonly swaps: SnapshotSwaps;
  readonly resolver: Resolver;
  /** Where each endpoint field call (executed or replayed) is counted. */
  readonly metrics: Pick<Metrics, 'endpoint'>;
  readonly logger: Logger;
  /** The most bytes of a request body. */
  readonly maxBodyBytes: number;
  /** Upper bound of the approximate bytes of the responses kept for replay. */
  readonly replayBytes: number;
  readonly maxBatch: number;
  readonly operationConcurrency: number;
  /** The longest one operation may take (the query timeout). */
  readonly operationTimeoutMs: number;
}

/** The GraphQL face: one yoga over a schema factory, on `/graphql`, with its kept responses. */
export function graphqlFace(options: GraphQLFacePluginOptions) {
  return async function face(app: FastifyInstance) {
    const replay = createResponseReplay({
      resolver: options.resolver,
      metrics: options.metrics,
      maxBytes: options.replayBytes,
    });
    options.swaps.subscribe(() => replay.clear());
    const mediaTypes = createAnsweredMediaTypes();
    const yogaOptions: GraphQLFaceOptions = {
      snapshot: options.snapshot,
      resolver: options.resolver,
      metrics: options.metrics,
      logger: options.logger,
      maxBatch: options.maxBatch,
      operationConcurrency: options.operationConcurrency,
      // Node's timers, as the engine's deadlines use: a test's manual clock moves cache time only.
      operationTimeoutMs: options.operationTimeoutMs,
      replay,
      mediaTypes,
    };
    const yoga = createQuerygateYoga(yogaOptions);
    const fast = createFastOperations({
      snapshot: options.snapshot,
      yoga,
      mediaTypes,
      resolver: options.resolver,
      metrics: options.metrics,
      contextFor: (request, reply) =>
        operationContext(
          yogaOptions,
          () => abandonSignal(reply),
          () => clientIdentity(request.raw, request.query),
        ),
    });
    await graphqlRoutes({
      yoga,
      snapshot: options.snapshot,
      maxBodyBytes: options.maxBodyBytes,
      replay,
      fast,
    })(app);
  };
}
