/**
 * Coalescing within one event-loop turn, the way every batching path of the kit does it (Batcher's
 * `startNextTurn`, the RPC client's request batches and the server's batched replies).
 *
 * Returns `schedule`: call it as often as you like during a turn; `flush` runs once, in the loop's
 * next check phase (`setImmediate`). Why the check phase and not a microtask: a microtask checkpoint
 * follows every I/O callback, so work queued by the fifty HTTP requests or NATS messages of one
 * socket read would flush fifty times; the check phase comes after all of that turn's callbacks.
 * (The NATS client's per-turn socket flush, patches/@nats-io+nats-core, is the same idea inside a
 * dependency; code that only needs to let the turn's other callbacks run first awaits
 * `setImmediate` from node:timers/promises.)
 */
export function oncePerTurn(flush: () => void): () => void {
  let scheduled = false;
  const run = () => {
    scheduled = false;
    flush();
  };
  return () => {
    if (scheduled) return;
    scheduled = true;
    setImmediate(run);
  };
}
