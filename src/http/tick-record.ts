import { executionAsyncResource } from 'node:async_hooks';

/**
 * One of Node's `process.nextTick` records. A server keeps one for as long as it serves, so that
 * V8 keeps the hidden classes every record is built through.
 *
 * Node builds each record from an object literal with symbol keys (`{ [async_id_symbol]: …,
 * [trigger_async_id_symbol]: …, callback, args }`). For such a literal V8 remembers one hidden
 * class per key and, on the first other one, gives up for good: from then on every property of
 * every record is defined through its runtime. Over the bench's 1M-row store that happened in 3 of
 * 7 server starts and in every peer-table run (read with `%DebugPrint(process.nextTick)`), never
 * in a bare node:http server, and never with a record held. Our reading: the intermediate classes
 * live only while some record does, so a full collection with none alive lets V8 drop them and the
 * next record gets new ones (`gc()` in a small script did not reproduce it). An HTTP response
 * takes three to five ticks: it cost a cached REST hit 1.5-3 µs, a tenth of its CPU or more, and
 * an executed GraphQL operation 6-8 µs.
 *
 * Inside a tick, the execution resource is that tick's record.
 */
export function nextTickRecord(): Promise<object> {
  return new Promise((resolve) => process.nextTick(() => resolve(executionAsyncResource())));
}
