import { oncePerTurn } from "./next-turn.js";

/**
 * Group commit: calls made while a batch is being written wait and go together in the next one.
 * Under light load a call runs alone at once (no added latency); under heavy load batches grow by
 * themselves to what one round trip can carry, so a hundred concurrent deliveries cost a few
 * transactions instead of a hundred. `run` answers one result per item, in order; if it throws,
 * every call of that batch rejects with the error (each caller decides whether to retry), unless
 * `splitOnError` is set: then each item of a failed batch runs again alone, so one caller's bad
 * input fails only that caller. Use it only where a failed `run` wrote nothing (one statement or
 * one transaction).
 */
/**
 * Options for read-only lookups made by many handlers at once (the /v1/sends of one coalesced RPC
 * message): every call of one event-loop turn shares one query, a few queries at a time.
 */
export const TURN_LOOKUPS = { maxBatch: 256, maxInFlight: 4, startNextTurn: true } as const;

export class Batcher<I, O> {
  private pending: Array<{ item: I; resolve: (o: O) => void; reject: (e: unknown) => void }> = [];
  private inFlight = 0;
  private readonly flushNextTurn = oncePerTurn(() => this.flush());
  private lingering: NodeJS.Timeout | undefined;

  /**
   * `startNextTurn`: a batch starts in the event loop's next check phase instead of at once, so the
   * calls made by every I/O callback of this turn (the messages of one fetch, say) share it.
   * `lingerMs`: a batch short of `maxBatch` starts this long after the call that opened it, not at
   * once, and not as soon as the batch in flight ends either (that cut every other batch short); a
   * full batch starts at once. For work whose caller can wait a little, it makes batches of a steady
   * trickle, which group commit alone answers one by one.
   * `splitOnError`: a failed batch of several items is retried item by item (see above).
   */
  constructor(
    private readonly run: (items: I[]) => Promise<O[]>,
    private readonly opts: { maxBatch: number; maxInFlight?: number; startNextTurn?: boolean; lingerMs?: number; splitOnError?: boolean } = { maxBatch: 256 },
  ) {}

  add(item: I): Promise<O> {
    return new Promise<O>((resolve, reject) => {
      this.pending.push({ item, resolve, reject });
      if (this.opts.lingerMs && this.pending.length < this.opts.maxBatch) {
        this.lingering ??= setTimeout(() => {
          this.lingering = undefined;
          this.flush();
        }, this.opts.lingerMs);
        return;
      }
      if (this.opts.startNextTurn) this.flushNextTurn();
      else this.flush();
    });
  }

  private flush(): void {
    while (this.pending.length > 0 && this.inFlight < (this.opts.maxInFlight ?? 1)) {
      // a short batch still lingering waits for its timer, which flushes it
      if (this.lingering && this.pending.length < this.opts.maxBatch) return;
      const batch = this.pending.splice(0, this.opts.maxBatch);
      this.inFlight++;
      this.run(batch.map((b) => b.item))
        .then(
          (out) => {
            for (const [i, b] of batch.entries()) b.resolve(out[i] as O);
          },
          (err) => {
            if (!this.opts.splitOnError || batch.length === 1) {
              for (const b of batch) b.reject(err);
              return;
            }
            for (const b of batch) this.run([b.item]).then((out) => b.resolve(out[0] as O), b.reject);
          },
        )
        .finally(() => {
          this.inFlight--;
          this.flush();
        });
    }
  }
}
