import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { ErrorBody } from "@mailroom/contracts";
import { Platform, apiClient, waitFor } from "@mailroom/testkit";
import { fakeService } from "./fake-service.js";

const platform = new Platform({ services: ["gateway"], env: { RPC_TIMEOUT_MS: "700" } });
let api: ReturnType<typeof apiClient>;

beforeAll(async () => {
  await platform.start();
  api = apiClient(platform.url, (await platform.createProject("resilience")).secretKey);
});
afterAll(() => platform.destroy());

describe("a service that is down or slow", () => {
  it("gives 503 at once when no replica runs, and is used again when one starts", async () => {
    const started = Date.now();
    const down = await api.get("/contacts");
    expect(down.status).toBe(503);
    expect(ErrorBody.parse(down.body).error).toBe("SERVICE_UNAVAILABLE");
    expect(Date.now() - started).toBeLessThan(700 + 500);

    const fake = await fakeService(platform.prefix, "contacts", {
      "contacts.list": async () => ({ status: 200, body: { data: [], cursor: null, hasMore: false, total: 0 } }),
    });
    try {
      expect((await api.get("/contacts")).status).toBe(200);
    } finally {
      await fake.stop();
    }
    expect((await api.get("/contacts")).status).toBe(503);
  });

  it("gives 503 within the bound when the service never answers", async () => {
    // The handler answers only once the test is over: within the test it never does.
    let release!: () => void;
    const over = new Promise<void>((resolve) => (release = resolve));
    const fake = await fakeService(platform.prefix, "contacts", {
      "contacts.list": async () => {
        await over;
        return { status: 200, body: {} };
      },
    });
    try {
      const started = Date.now();
      const res = await api.get("/contacts");
      const took = Date.now() - started;
      expect(res.status).toBe(503);
      expect(took).toBeGreaterThanOrEqual(650);
      expect(took).toBeLessThan(2000);
    } finally {
      release();
      await fake.stop();
    }
  });
});

describe("replicas", () => {
  it("share requests through the queue group", async () => {
    const a = await platform.startService("verify");
    const b = await platform.startService("verify");
    // Addresses that do not parse are answered without DNS, so the test needs no zone.
    for (let i = 0; i < 40; i++) {
      const res = await api.post("/v1/verify", { email: `not an address ${i}` });
      expect(res.status).toBe(400);
    }
    const handled = async (opsPort: number) => {
      const text = await (await fetch(`http://127.0.0.1:${opsPort}/metrics`)).text();
      const line = text.split("\n").find((l) => l.startsWith("mailroom_rpc_requests_total") && l.includes('operation="verify.verify"'));
      return Number(line?.split(" ").pop() ?? 0);
    };
    const [na, nb] = [await handled(a.opsPort), await handled(b.opsPort)];
    expect(na + nb).toBe(40);
    expect(na).toBeGreaterThan(0);
    expect(nb).toBeGreaterThan(0);
  });

  it("stops in order on SIGTERM: readiness first, exit 0 well within 10 s", async () => {
    const proc = await platform.startService("verify");
    const started = Date.now();
    const exited = new Promise<number | null>((resolve) => proc.child.once("exit", (code) => resolve(code)));
    proc.child.kill("SIGTERM");
    expect(await exited).toBe(0);
    expect(Date.now() - started).toBeLessThan(10_000);
    await waitFor(async () => !(await fetch(`http://127.0.0.1:${proc.opsPort}/livez`).catch(() => null)), { what: "ops port closed" });
  });
});

describe("Redis down", () => {
  const noRedis = new Platform({ services: ["gateway"], env: { REDIS_URL: "redis://127.0.0.1:1" } });
  afterAll(() => noRedis.destroy());

  it("keeps the gateway ready and answering, without rate limits and without waiting on Redis", async () => {
    await noRedis.start();
    const ready = await (await fetch(`http://127.0.0.1:${noRedis.procs.get("gateway")![0]!.opsPort}/readyz`)).json();
    expect(ready.checks.redis).toMatch(/^degraded/);
    const client = apiClient(noRedis.url, (await noRedis.createProject("no-redis")).secretKey);
    const fake = await fakeService(noRedis.prefix, "contacts", {
      "contacts.list": async () => ({ status: 200, body: { data: [], cursor: null, hasMore: false, total: 0 } }),
    });
    try {
      const started = Date.now();
      for (let i = 0; i < 20; i++) {
        const res = await client.get("/contacts");
        expect(res.status).toBe(200);
        expect(res.headers.get("ratelimit-limit")).toBeNull();
      }
      expect(Date.now() - started).toBeLessThan(3000);
    } finally {
      await fake.stop();
    }
  });
});
