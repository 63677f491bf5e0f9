/** Polls `fn` until it returns a truthy value or the time is up (then throws with `what`). */
export async function waitFor<T>(fn: () => Promise<T> | T, opts: { timeoutMs?: number; intervalMs?: number; what?: string } = {}): Promise<NonNullable<T>> {
  const deadline = Date.now() + (opts.timeoutMs ?? 10_000);
  let last: unknown;
  for (;;) {
    try {
      const v = await fn();
      if (v) return v as NonNullable<T>;
    } catch (err) {
      last = err;
    }
    if (Date.now() > deadline) {
      throw new Error(`timed out waiting for ${opts.what ?? "condition"}${last ? `: ${String(last)}` : ""}`);
    }
    await new Promise((r) => setTimeout(r, opts.intervalMs ?? 50));
  }
}

export const sleep = (ms: number) => new Promise((r) => setTimeout(r, ms));
