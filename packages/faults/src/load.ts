/** Status of a request the client gave up on: it hung past the bound. */
export const HUNG = -1;
/** Status of a request that never got an HTTP answer (connection refused or reset). */
export const NO_ANSWER = 0;

export interface Outcome {
  status: number;
  ms: number;
  body: any;
}

/**
 * One HTTP call with a client-side bound, so a hang shows up as HUNG instead of stalling the test.
 * The bound sits above RPC_TIMEOUT_MS: a server that keeps its own bound never reaches it.
 */
export async function call(
  url: string,
  init: { method?: string; key?: string; body?: unknown; headers?: Record<string, string> },
  boundMs = 10_000,
): Promise<Outcome> {
  const started = performance.now();
  const headers: Record<string, string> = { ...init.headers };
  if (init.key) headers.authorization = `Bearer ${init.key}`;
  if (init.body !== undefined) headers["content-type"] = "application/json";
  try {
    const res = await fetch(url, {
      method: init.method ?? (init.body === undefined ? "GET" : "POST"),
      headers,
      body: init.body === undefined ? undefined : JSON.stringify(init.body),
      signal: AbortSignal.timeout(boundMs),
    });
    const text = await res.text();
    let body: unknown = text;
    try {
      body = JSON.parse(text);
    } catch {
      // not JSON: keep the text
    }
    return { status: res.status, ms: performance.now() - started, body };
  } catch (err) {
    const hung = (err as Error)?.name === "TimeoutError";
    return { status: hung ? HUNG : NO_ANSWER, ms: performance.now() - started, body: String(err) };
  }
}

/** Runs `fn` for items 0..count-1 with at most `concurrency` in flight. */
export async function pool(count: number, concurrency: number, fn: (i: number) => Promise<void>): Promise<void> {
  let next = 0;
  const worker = async () => {
    while (next < count) await fn(next++);
  };
  await Promise.all(Array.from({ length: Math.min(concurrency, count) }, worker));
}

/** Nearest-rank percentile of `values` (p in 0..100). */
export function percentile(values: number[], p: number): number {
  if (values.length === 0) return 0;
  const sorted = [...values].sort((a, b) => a - b);
  return sorted[Math.min(sorted.length - 1, Math.max(0, Math.ceil((p / 100) * sorted.length) - 1))]!;
}

/** Counts of each status, for messages like `{200: 310, 503: 42}`. */
export function statusCounts(outcomes: Outcome[]): Record<number, number> {
  const counts: Record<number, number> = {};
  for (const o of outcomes) counts[o.status] = (counts[o.status] ?? 0) + 1;
  return counts;
}
