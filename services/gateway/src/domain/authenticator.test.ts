import { describe, expect, it } from "vitest";
import { Authenticator } from "./authenticator.js";
import { type FailureBudget, LookupFailures } from "./lookup-failures.js";
import { generateKey, hashKey } from "./keys.js";
import type { KeyRecord } from "./authenticator.js";

const valid = generateKey("secret");
const record: KeyRecord = { id: "k1", projectId: "p1", kind: "secret", rateLimit: null };

function setup(budget = 3, ttlMs = 500) {
  const lookups: string[] = [];
  const charged: string[] = [];
  const left = new Map<string, number>();
  const failures: FailureBudget = {
    async take(client) {
      charged.push(client);
      const now = (left.get(client) ?? budget) - 1;
      left.set(client, now);
      return { allowed: now >= 0, limit: budget, remaining: Math.max(0, now), resetSeconds: 7, enforced: true };
    },
  };
  const auth = new Authenticator(
    {
      async findActiveByHash(hash) {
        lookups.push(hash);
        return hash === hashKey(valid) ? record : null;
      },
    },
    ttlMs,
    new LookupFailures(failures),
  );
  return { auth, lookups, charged };
}

const bearer = (key: string) => `Bearer ${key}`;

describe("Authenticator", () => {
  it("looks an unknown key up once, then refuses it from memory", async () => {
    const { auth, lookups } = setup();
    const unknown = generateKey("secret");
    for (let i = 0; i < 5; i++) expect((await auth.authenticate(bearer(unknown), "secret", "198.51.100.1")).kind).toBe("denied");
    expect(lookups).toHaveLength(1);
  });

  it("charges the client for each lookup that finds nothing, and refuses its next ones without a query", async () => {
    const { auth, lookups, charged } = setup(3);
    const client = "198.51.100.2";
    expect((await auth.authenticate(bearer(valid), "secret", client)).kind).toBe("ok");
    for (let i = 0; i < 4; i++) expect((await auth.authenticate(bearer(generateKey("secret")), "secret", client)).kind).toBe("denied");
    expect(charged).toEqual([client, client, client, client]);
    const throttled = await auth.authenticate(bearer(generateKey("secret")), "secret", client);
    expect(throttled).toEqual({ kind: "throttled", retryAfterSeconds: 7 });
    expect(lookups).toHaveLength(5);
    // a cached valid key still works from the throttled address, and another address is not affected
    expect(await auth.authenticate(bearer(valid), "secret", client)).toEqual({ kind: "ok", principal: record });
    expect((await auth.authenticate(bearer(generateKey("secret")), "secret", "198.51.100.3")).kind).toBe("denied");
    expect(lookups).toHaveLength(6);
  });

  it("never charges or queries for a malformed key or a public key on a secret route", async () => {
    const { auth, lookups, charged } = setup();
    expect((await auth.authenticate("Bearer sk_short", "secret", "c")).kind).toBe("denied");
    expect((await auth.authenticate(bearer(generateKey("public")), "secret", "c")).kind).toBe("denied");
    expect((await auth.authenticate(undefined, "any", "c")).kind).toBe("denied");
    expect(lookups).toEqual([]);
    expect(charged).toEqual([]);
  });

  it("keeps valid keys cached while random keys flood the unknown-key memory", async () => {
    const { auth, lookups } = setup(1_000_000, 60_000);
    await auth.authenticate(bearer(valid), "secret", "c");
    for (let i = 0; i < 25_000; i++) await auth.authenticate(bearer(generateKey("secret")), "secret", `c${i}`);
    const before = lookups.length;
    expect((await auth.authenticate(bearer(valid), "secret", "c")).kind).toBe("ok");
    expect(lookups.length).toBe(before);
  });
});
