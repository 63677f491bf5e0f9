import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { ErrorBody, ROUTES } from "@mailroom/contracts";
import { Platform, apiClient, waitFor } from "@mailroom/testkit";
import { fakeService } from "./fake-service.js";

const platform = new Platform({ services: ["gateway"], env: { RATE_LIMIT_PER_SECOND: "1000", RATE_LIMIT_BURST: "2000" } });
let project: Awaited<ReturnType<Platform["createProject"]>>;
let fake: Awaited<ReturnType<typeof fakeService>>;

beforeAll(async () => {
  await platform.start();
  // by the operator CLI itself, whose key commands this file tests (the kit makes projects in-process)
  project = JSON.parse(await platform.cli(["projects", "create", "--name", "auth", "--json"]));
  const ok = async () => ({ status: 200, body: { success: true } });
  fake = await fakeService(platform.prefix, "contacts", { "contacts.track": ok, "contacts.list": ok });
});
afterAll(async () => {
  await fake?.stop();
  await platform.destroy();
});

function concretePath(path: string): string {
  return path.replace(/:[A-Za-z]+/g, "00000000-0000-7000-8000-000000000000");
}

function withoutTime(body: unknown) {
  const { time: _t, ...rest } = ErrorBody.parse(body);
  return rest;
}

describe("API keys", () => {
  it("gives every key failure the same 401 body", async () => {
    const cases: Record<string, string | undefined> = {
      missing: undefined,
      empty: "",
      "no scheme": project.secretKey,
      "basic scheme": `Basic ${project.secretKey}`,
      "bearer without key": "Bearer ",
      malformed: "Bearer sk_short",
      "unknown secret": `Bearer sk_${"A".repeat(43)}`,
      "unknown public": `Bearer pk_${"A".repeat(43)}`,
      "public on a secret route": `Bearer ${project.publicKey}`,
    };
    const bodies = [];
    for (const [name, header] of Object.entries(cases)) {
      const res = await apiClient(platform.url).get("/contacts", header === undefined ? {} : { authorization: header });
      expect(res.status, name).toBe(401);
      bodies.push(withoutTime(res.body));
    }
    for (const b of bodies) expect(b).toEqual({ code: 401, error: "UNAUTHORIZED", message: bodies[0]!.message });
  });

  it("accepts the secret key and derives the project from it", async () => {
    const res = await apiClient(platform.url, project.secretKey).get("/contacts");
    expect(res.status).toBe(200);
  });

  it("refuses a pk_ key on every route but /v1/track", async () => {
    const pub = apiClient(platform.url, project.publicKey);
    for (const route of ROUTES.filter((r) => r.auth === "secret")) {
      const res = await pub.call(route.method, concretePath(route.path), route.method === "GET" || route.method === "DELETE" ? undefined : {});
      expect(res.status, `${route.method} ${route.path}`).toBe(401);
    }
    const track = await pub.post("/v1/track", { email: "a@example.com", event: "signup" });
    expect(track.status).toBe(200);
  });

  it("stops honouring a revoked key within one second", async () => {
    const created = JSON.parse(await platform.cli(["keys", "create", "--project", project.id, "--kind", "secret", "--json"]));
    const client = apiClient(platform.url, created.key);
    expect((await client.get("/contacts")).status).toBe(200);
    await platform.cli(["keys", "revoke", created.id]);
    const revokedAt = Date.now();
    await waitFor(async () => (await client.get("/contacts")).status === 401, { timeoutMs: 1000, intervalMs: 20, what: "revocation" });
    expect(Date.now() - revokedAt).toBeLessThan(1000);
    const listed = JSON.parse(await platform.cli(["keys", "list", "--project", project.id, "--json"]));
    expect(listed.find((k: { id: string }) => k.id === created.id).revokedAt).toBeTruthy();
  });

  it("rate-limits per key with Retry-After and RateLimit headers, without touching other keys", async () => {
    const limited = JSON.parse(await platform.cli(["keys", "create", "--project", project.id, "--kind", "secret", "--rate-limit", "2", "--json"]));
    const client = apiClient(platform.url, limited.key);
    const statuses: number[] = [];
    let last: Awaited<ReturnType<typeof client.get>> | undefined;
    for (let i = 0; i < 10; i++) {
      last = await client.get("/contacts");
      statuses.push(last.status);
      if (last.status === 429) break;
    }
    expect(statuses).toContain(429);
    expect(Number(last!.headers.get("retry-after"))).toBeGreaterThanOrEqual(1);
    expect(last!.headers.get("ratelimit-limit")).toBe("4");
    expect(ErrorBody.parse(last!.body).error).toBe("RATE_LIMITED");
    // The project's other key has its own bucket.
    expect((await apiClient(platform.url, project.secretKey).get("/contacts")).status).toBe(200);
  });
});
