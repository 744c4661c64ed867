import type { Plugin } from 'graphql-yoga';
import { canonicalKey } from '../resolve/canonical-key.js';
import type { GraphQLContext } from './context.js';
import type { Answer, KeptCall, ReplayKey, ResponseReplay } from './response-replay.js';

/**
 * One request's answer on its way to being kept: the face makes it for a request worth keeping
 * (see `ResponseReplay.worthKeeping`), whichever path then answers it.
 */
export interface ReplayRecording {
  readonly key: ReplayKey;
  /** By canonical key: two aliases of one call are one call, as the operation's loader has it. */
  readonly calls: Map<string, KeptCall>;
  /** One plain result without errors was made, the only kind of response to keep. */
  clean: boolean;
}

/** What the face hands yoga with a request whose answer is to be kept. */
export interface ReplayServerContext {
  readonly replayRecording?: ReplayRecording | undefined;
}

export function createReplayRecording(key: ReplayKey): ReplayRecording {
  return { key, calls: new Map(), clean: false };
}

/** An operation's `loadEndpoint` that notes every call it answers in the recording. */
export function recordingLoad(
  load: GraphQLContext['loadEndpoint'],
  recording: ReplayRecording,
): GraphQLContext['loadEndpoint'] {
  return async (endpoint, params) => {
    const resolved = await load(endpoint, params);
    recording.calls.set(canonicalKey(endpoint, params), { endpoint, params, result: resolved.result });
    return resolved;
  };
}

/** Keeps a clean 200 answer with the calls it was made of. */
export function keepRecorded(replay: ResponseReplay, recording: ReplayRecording, answer: Answer): void {
  if (answer.status !== 200 || !recording.clean) return;
  replay.keep(recording.key, answer, [...recording.calls.values()]);
}

/**
 * Keeps the response yoga gave to a request the face found worth keeping (see
 * `createResponseReplay` for why and when): the face answers repeats itself, before yoga. Its hooks
 * note the endpoint calls an operation reads (by wrapping the context's `loadEndpoint`) and whether
 * the result was clean, and keep the response once it is made. Requests the face marked for no
 * keeping (and `yoga.fetch` in tests) pass untouched.
 */
export function useResponseReplay(replay: ResponseReplay): Plugin<GraphQLContext, ReplayServerContext> {
  return {
    onContextBuilding({ context }) {
      const recording = (context as ReplayServerContext).replayRecording;
      if (!recording) return;
      return ({ context: built, extendContext }) => {
        extendContext({ loadEndpoint: recordingLoad(built.loadEndpoint, recording) });
      };
    },
    onResultProcess({ result, serverContext }) {
      const recording = serverContext.replayRecording;
      if (!recording) return;
      recording.clean = !Array.isArray(result) && !(Symbol.asyncIterator in result) && !result.errors?.length;
    },
    async onResponse({ response, serverContext }) {
      const recording = serverContext.replayRecording;
      if (!recording || response.status !== 200 || !recording.clean) return;
      // Never a stream worth streaming: the schema has no subscriptions or @defer.
      const body = Buffer.from(await response.clone().arrayBuffer());
      keepRecorded(replay, recording, {
        status: response.status,
        headers: headerRecord(response.headers),
        body,
      });
    },
  };
}

/** A plain object of the headers, without the framing the face sets itself for the buffered body. */
export function headerRecord(headers: Headers): Record<string, string> {
  const record: Record<string, string> = {};
  // whatwg-node's Headers may keep the case yoga wrote ('Transfer-Encoding').
  headers.forEach((value, name) => {
    const lower = name.toLowerCase();
    if (lower !== 'content-length' && lower !== 'transfer-encoding') record[lower] = value;
  });
  return record;
}
