import { randomBytes } from "node:crypto";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { ErrorBody, type HttpReply } from "@mailroom/contracts";
import { Platform, apiClient, type ApiResponse } from "@mailroom/testkit";
import { fakeService } from "./fake-service.js";

/**
 * Limits per client address (decisions.md §12): the routes without a key, and key lookups that find
 * nothing, so neither a flood of anonymous requests nor a flood of random keys reaches the services
 * or the database. The address is the socket's unless TRUST_PROXY names the proxy in front.
 */
const LIMITS = { IP_RATE_LIMIT_PER_SECOND: "1", IP_RATE_LIMIT_BURST: "5", AUTH_FAILURES_PER_SECOND: "1", AUTH_FAILURES_BURST: "5" };
/** A short key cache, so a test can outlive it without waiting out the default. */
const KEY_CACHE_MS = 200;
const direct = new Platform({ services: ["gateway"], env: { ...LIMITS, KEY_CACHE_MS: String(KEY_CACHE_MS) } });
const proxied = new Platform({ services: ["gateway"], env: { ...LIMITS, TRUST_PROXY: "127.0.0.0/8" } });
const fakes: Array<{ stop(): Promise<void> }> = [];
/** Client address the service was told, per platform. */
const ips = new Map<string, string[]>();

const randomKey = () => `sk_${randomBytes(32).toString("base64url")}`;
const statuses = (answers: ApiResponse[]) => answers.map((a) => a.status);
const count = (list: number[], status: number) => list.filter((s) => s === status).length;

async function withFakes(platform: Platform) {
  const seen: string[] = [];
  ips.set(platform.prefix, seen);
  const open = async (input: { meta: { ip?: string } }): Promise<HttpReply> => {
    seen.push(input.meta.ip ?? "");
    return { status: 200, raw: { contentType: "image/gif", base64: "R0lGODlhAQABAAAAACw=" } };
  };
  fakes.push(
    await fakeService(platform.prefix, "sending", { "sending.links.open": open }),
    await fakeService(platform.prefix, "contacts", {
      "contacts.list": async () => ({ status: 200, body: { data: [], cursor: null, hasMore: false, total: 0 } }),
    }),
  );
}

/** The gateway's count of key lookups that reached the database and found nothing. */
async function unknownLookups(platform: Platform): Promise<number> {
  const text = await (await fetch(`http://127.0.0.1:${platform.procs.get("gateway")![0]!.opsPort}/metrics`)).text();
  const line = text.split("\n").find((l) => l.startsWith("mailroom_gateway_key_lookups_total") && l.includes('result="unknown"'));
  return Number(line?.split(" ").pop() ?? 0);
}

function expectRateLimited(res: ApiResponse) {
  expect(res.status).toBe(429);
  expect(ErrorBody.parse(res.body).error).toBe("RATE_LIMITED");
  expect(Number(res.headers.get("retry-after"))).toBeGreaterThanOrEqual(1);
}

beforeAll(async () => {
  await Promise.all([direct.start(), proxied.start()]);
  await Promise.all([withFakes(direct), withFakes(proxied)]);
});
afterAll(async () => {
  for (const f of fakes) await f.stop();
  await Promise.all([direct.destroy(), proxied.destroy()]);
});

describe("routes without a key", () => {
  it("limit each client address, whatever X-Forwarded-For it claims, and leave keyed routes alone", async () => {
    const anon = apiClient(direct.url);
    // each request claims another address: not believed, since no proxy is trusted
    const answers = await Promise.all(Array.from({ length: 12 }, (_, i) => anon.get("/t/o/x", { "x-forwarded-for": `198.51.100.${i + 1}` })));
    const got = statuses(answers);
    // a burst of 5, and at most one more token refilled (1 per second) while they ran
    expect(count(got, 200)).toBeGreaterThanOrEqual(5);
    expect(count(got, 200)).toBeLessThanOrEqual(6);
    expect(count(got, 429)).toBe(12 - count(got, 200));
    expectRateLimited(answers.find((a) => a.status === 429)!);
    expect(new Set(ips.get(direct.prefix))).toEqual(new Set(["127.0.0.1"]));
    const { secretKey } = await direct.createProject("keyed");
    expect((await apiClient(direct.url, secretKey).get("/contacts")).status).toBe(200);
  });

  it("limit the address X-Forwarded-For names when TRUST_PROXY trusts the proxy", async () => {
    const from = (address: string) => apiClient(proxied.url).get("/t/o/x", { "x-forwarded-for": `203.0.113.99, ${address}` });
    const first = await Promise.all(Array.from({ length: 8 }, () => from("192.0.2.1")));
    expect(count(statuses(first), 200)).toBeLessThanOrEqual(6);
    expectRateLimited(first.find((a) => a.status === 429)!);
    // another client behind the same proxy has a bucket of its own
    expect((await from("192.0.2.2")).status).toBe(200);
    // the service is told the client's address: the nearest one the trusted proxy appended
    expect(ips.get(proxied.prefix)).toContain("192.0.2.2");
    expect(ips.get(proxied.prefix)).not.toContain("127.0.0.1");
  });
});

describe("keys that do not exist", () => {
  it("are looked up once, then refused from memory", async () => {
    const anon = apiClient(direct.url);
    const key = randomKey();
    const before = await unknownLookups(direct);
    for (let i = 0; i < 3; i++) expect((await anon.get("/contacts", { authorization: `Bearer ${key}` })).status).toBe(401);
    // past the key cache's lifetime (this time is what is tested), still no query
    await new Promise((resolve) => setTimeout(resolve, KEY_CACHE_MS + 300));
    for (let i = 0; i < 3; i++) expect((await anon.get("/contacts", { authorization: `Bearer ${key}` })).status).toBe(401);
    expect((await unknownLookups(direct)) - before).toBe(1);
  });

  it("cost an address a query each only up to its budget, then 429 without a query", async () => {
    const anon = apiClient(direct.url);
    const before = await unknownLookups(direct);
    const answers: ApiResponse[] = [];
    for (let i = 0; i < 30; i++) answers.push(await anon.get("/contacts", { authorization: `Bearer ${randomKey()}` }));
    const got = statuses(answers);
    expect(count(got, 401) + count(got, 429)).toBe(30);
    expect(count(got, 429)).toBeGreaterThanOrEqual(20);
    expectRateLimited(answers.at(-1)!);
    // the budget (5, 1 more per second) and the lookup that found it spent: not one per key
    const lookups = (await unknownLookups(direct)) - before;
    expect(lookups).toBe(count(got, 401));
    expect(lookups).toBeLessThanOrEqual(10);
  });

  it("do not stop another client behind the same proxy", async () => {
    const { secretKey } = await proxied.createProject("valid");
    const as = (address: string, key: string) => apiClient(proxied.url, key).get("/contacts", { "x-forwarded-for": address });
    expect((await as("192.0.2.10", secretKey)).status).toBe(200);
    const answers: ApiResponse[] = [];
    for (let i = 0; i < 12; i++) answers.push(await as("192.0.2.10", randomKey()));
    expectRateLimited(answers.at(-1)!);
    expect((await as("192.0.2.11", secretKey)).status).toBe(200);
    expect((await as("192.0.2.11", randomKey())).status).toBe(401);
  });
});

describe("session cookies that sign nobody in", () => {
  it("are counted per client address like unknown keys: 429 past the same budget", async () => {
    const from = (address: string, cookie: string) => apiClient(proxied.url).get("/auth/me", { "x-forwarded-for": address, cookie });
    const forged = () => `mailroom_session=${randomBytes(32).toString("base64url")}`;
    const answers: ApiResponse[] = [];
    for (let i = 0; i < 20; i++) answers.push(await from("192.0.2.20", forged()));
    const got = statuses(answers);
    // the budget (5, 1 more per second), then refused without a lookup
    expect(count(got, 401)).toBeGreaterThanOrEqual(5);
    expect(count(got, 401)).toBeLessThanOrEqual(8);
    expect(count(got, 429)).toBe(20 - count(got, 401));
    expectRateLimited(answers.at(-1)!);
    // unknown keys from that address share the budget; another address has its own
    expectRateLimited(await apiClient(proxied.url, randomKey()).get("/contacts", { "x-forwarded-for": "192.0.2.20" }));
    expect((await from("192.0.2.21", forged())).status).toBe(401);
  });
});
