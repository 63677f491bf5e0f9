import { randomBytes } from "node:crypto";
import { expect } from "vitest";
import { wireNames } from "@mailroom/contracts";
import { Drain, waitFor } from "@mailroom/testkit";
import { HUNG, call, deliveryReport, pool, statusCounts, type Outcome, type Rig } from "../src/index.js";

/**
 * Client-side bound on one /v1/send: its route bound (`timeoutMs` 30 s in the contract, for up to 50
 * recipients) plus a margin. Only requests already on the wire when a fault hits can take that long;
 * requests that start during an outage must answer fast (see FAST_MS).
 */
export const BOUND_MS = 35_000;
/**
 * How fast a request that starts while a dependency is down must get its 503: within RPC_TIMEOUT_MS
 * (5 s), not its route bound. Measured: a few ms with NATS down; up to 2.5 s with PostgreSQL down,
 * where requests queue for the pool's reconnect attempts (every 0.5 s at most).
 */
export const FAST_MS = 5_000;

export interface Sent {
  to: string;
  at: number;
  outcome: Outcome;
}

export interface BurstOptions {
  count: number;
  concurrency: number;
  /** Index of the request at which `fault` starts (it runs alongside the burst). */
  faultAt?: number;
  fault?: () => Promise<void>;
  tag: string;
}

/**
 * `count` /v1/send requests, one unique recipient each, `concurrency` at a time, with a fault
 * injected part-way. Every outcome is kept with its recipient, so the sink can be checked per request.
 */
export async function sendBurst(rig: Rig, opts: BurstOptions): Promise<Sent[]> {
  const run = randomBytes(3).toString("hex");
  const sent: Sent[] = [];
  let fault: Promise<void> | undefined;
  await pool(opts.count, opts.concurrency, async (i) => {
    if (i === opts.faultAt) fault = opts.fault?.();
    const to = `${opts.tag}-${run}-${i}@example.com`;
    const at = Date.now();
    const outcome = await call(
      `${rig.platform.url}/v1/send`,
      { key: rig.project.secretKey, body: { to, from: rig.from, subject: `burst ${i}`, body: `<p>message ${i}</p>` } },
      BOUND_MS,
    );
    sent.push({ to, at, outcome });
  });
  await fault;
  return sent;
}

/**
 * The promise of a burst under a fault: no request hung, every refusal was a 503 (or, with
 * `alsoAllowed`, a refused connection while the gateway itself was down), and every accepted send is
 * in the sink exactly once. Requests that got 503 may still have gone through (the service finished
 * the work after the gateway gave up); they may appear, but never twice.
 */
export async function expectAcceptedDeliveredOnce(rig: Rig, sent: Sent[], opts: { alsoAllowed?: number[]; others?: string[] } = {}) {
  const alsoAllowed = opts.alsoAllowed ?? [];
  const counts = statusCounts(sent.map((s) => s.outcome));
  expect(counts[HUNG] ?? 0, `hung requests: ${JSON.stringify(counts)}`).toBe(0);
  const odd = sent.filter((s) => ![200, 503, ...alsoAllowed].includes(s.outcome.status));
  expect(odd.map((s) => `${s.outcome.status} ${JSON.stringify(s.outcome.body)}`.slice(0, 300))).toEqual([]);
  for (const s of sent.filter((x) => x.outcome.status === 503)) {
    expect(s.outcome.body).toMatchObject({ code: 503, error: "SERVICE_UNAVAILABLE" });
  }
  const accepted = sent.filter((s) => s.outcome.status === 200).map((s) => s.to);
  const refused = sent.filter((s) => s.outcome.status !== 200).map((s) => s.to);
  await waitFor(() => deliveryReport(rig.mailbox.messages(), accepted).missing.length === 0, {
    timeoutMs: 120_000,
    intervalMs: 250,
    what: `${accepted.length} accepted emails in the sink`,
  }).catch(() => undefined);
  // A late duplicate is a job delivered again: none is left once the lane has acknowledged every job.
  const drain = await Drain.open(rig.platform.env);
  try {
    await drain.within(60_000, wireNames(rig.platform.prefix).consumers.sendingTransactional);
  } finally {
    await drain.close();
  }
  const report = deliveryReport(rig.mailbox.messages(), accepted, [...refused, ...(opts.others ?? [])]);
  expect(report).toMatchObject({ missing: [], doubled: [], sharedIds: [], unexpected: [], repeatedCopies: 0 });
  const refusedReport = deliveryReport(rig.mailbox.messages(), refused);
  expect(refusedReport, "a refused request is sent at most once").toMatchObject({ doubled: [], repeatedCopies: 0 });
  return { counts, accepted: accepted.length, refusedButDelivered: refusedReport.delivered };
}

/** After the fault: a batch sent once the platform had time to recover must be accepted in full. */
export async function expectRecovered(rig: Rig, tag: string, count = 40): Promise<Sent[]> {
  const sent = await sendBurst(rig, { count, concurrency: 8, tag });
  expect(statusCounts(sent.map((s) => s.outcome))).toEqual({ 200: count });
  return sent;
}

/** Every service of the rig answers /readyz with 200 again. */
export async function waitReady(rig: Rig, timeoutMs = 30_000): Promise<void> {
  for (const [name, procs] of rig.platform.procs) {
    for (const proc of procs) {
      await waitFor(async () => (await fetch(`http://127.0.0.1:${proc.opsPort}/readyz`)).status === 200, { timeoutMs, what: `${name} to be ready again` });
    }
  }
}

/** Status counts of the requests started while the fault lasted. */
export const during = (sent: Sent[], from: number, to: number) =>
  statusCounts(sent.filter((s) => s.at >= from && s.at < to).map((s) => s.outcome));
