import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { startDnsServer, waitFor, type DnsServer } from "@mailroom/testkit";
import { HUNG, call, pool, startRig, statusCounts, type Outcome, type Rig } from "../src/index.js";
import { scaled } from "./scale.js";

const REQUESTS = scaled(60);
/** A request with Redis gone must not wait on it: well under RPC_TIMEOUT_MS. */
const FAST_MS = 1500;
const DOMAIN = "redis-fault.mailroom.test";
/** A domain first verified while Redis is down. */
const FRESH = "fresh.redis-fault.mailroom.test";

/**
 * Redis stopped (SIGKILL) while the platform runs, then started again (empty: no persistence). The
 * README's promise: the gateway fails open on rate limits, the verify service answers from DNS and its
 * in-process cache (what it looked up during the outage it remembers there), both stay ready with
 * redis "degraded", and no request waits on Redis.
 */
describe("Redis stopped", () => {
  let rig: Rig;
  let dns: DnsServer;

  const burst = async (path: string) => {
    const outcomes: Outcome[] = [];
    await pool(REQUESTS, 10, async () => void outcomes.push(await call(`${rig.platform.url}${path}`, { key: rig.project.secretKey })));
    return outcomes;
  };
  const verify = (domain = DOMAIN) => call(`${rig.platform.url}/v1/verify`, { key: rig.project.secretKey, body: { email: `someone@${domain}` } });
  /** A verify let through once the key's bucket has a token again (a 429 reaches no service, so asks no DNS). */
  const verifyOnceAllowed = () =>
    waitFor(async () => (await verify()).status === 200, { timeoutMs: 10_000, intervalMs: 200, what: "a verify within the rate limit" });
  const lookups = (domain = DOMAIN) => dns.queries.filter((q) => q.name === domain).length;
  const readyz = async (service: "gateway" | "verify") =>
    (await fetch(`http://127.0.0.1:${rig.platform.procs.get(service)![0]!.opsPort}/readyz`)).json() as Promise<{ checks: Record<string, string> }>;

  beforeAll(async () => {
    const zone = { MX: [{ exchange: `mx.${DOMAIN}`, priority: 10 }], A: ["192.0.2.10"] };
    dns = await startDnsServer({ zones: { [DOMAIN]: zone, [FRESH]: zone } });
    rig = await startRig({
      services: ["gateway", "contacts", "verify"],
      own: ["redis"],
      // A small per-key limit, so enforcement (or its absence) shows in a short burst.
      env: { RATE_LIMIT_PER_SECOND: "5", RATE_LIMIT_BURST: "10", DNS_SERVER: dns.address },
    });
  });
  afterAll(async () => {
    await rig?.destroy();
    await dns?.stop();
  });

  it("with Redis up: rate limits hold and DNS answers are cached", async () => {
    const counts = statusCounts(await burst("/contacts?limit=1"));
    expect(counts[429] ?? 0, JSON.stringify(counts)).toBeGreaterThan(0);
    await verifyOnceAllowed();
    const first = lookups();
    expect(first).toBeGreaterThan(0);
    await verifyOnceAllowed();
    expect(lookups(), "the second verify is answered from the cache").toBe(first);
  });

  it("with Redis stopped: fail open, DNS and the in-process cache answer, still ready (degraded), no request waits", async () => {
    await rig.infra.redis!.stop("SIGKILL");
    const outcomes = await burst("/contacts?limit=1");
    expect(statusCounts(outcomes), "every request let through").toEqual({ 200: REQUESTS });
    expect(Math.max(...outcomes.map((o) => o.ms))).toBeLessThan(FAST_MS);

    for (let i = 0; i < 3; i++) {
      const v = await verify(FRESH);
      expect(v.status).toBe(200);
      expect(v.ms).toBeLessThan(FAST_MS);
      expect(v.body.data).toMatchObject({ email: `someone@${FRESH}` });
    }
    // the first verification asked DNS (Redis could not answer); the in-process cache took the rest
    expect(lookups(FRESH), "one lookup: its four record types").toBe(4);

    for (const service of ["gateway", "verify"] as const) {
      const ready = await readyz(service);
      expect(ready.checks.redis, service).toMatch(/^degraded/);
    }
    const slow = outcomes.filter((o) => o.status === HUNG);
    expect(slow).toEqual([]);
  });

  it("with Redis back: limits and the cache work again", async () => {
    await rig.infra.redis!.start();
    await waitFor(async () => (await readyz("gateway")).checks.redis === "ok", { timeoutMs: 15_000, what: "gateway to see Redis again" });
    await waitFor(async () => (await readyz("verify")).checks.redis === "ok", { timeoutMs: 15_000, what: "verify to see Redis again" });
    await waitFor(async () => (statusCounts(await burst("/contacts?limit=1"))[429] ?? 0) > 0, {
      timeoutMs: 15_000,
      intervalMs: 500,
      what: "rate limiting to resume",
    });
    await verifyOnceAllowed();
    const cached = lookups();
    await verifyOnceAllowed();
    expect(lookups()).toBe(cached);
  });
});
