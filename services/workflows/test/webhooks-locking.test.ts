import { randomUUID } from "node:crypto";
import { fileURLToPath } from "node:url";
import { migrate, openDatabase, serviceDatabaseUrl, type Sql } from "@mailroom/kit";
import { DATABASE_URL, dropDatabases, runPrefix } from "@mailroom/testkit";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { type Attempt, webhooksRepo } from "../src/db/webhooks-repo.js";

/**
 * An endpoint deleted while the dispatcher records its deliveries' answers, on a database of its
 * own (no service polls it). Recording once took the deliveries' rows and then their endpoint's
 * (its failure clock) while the delete took the endpoint's and then, cascading, its deliveries',
 * and PostgreSQL aborted one of a pair (40P01): the owner's DELETE answered 500.
 */
const prefix = runPrefix("whlock");
const url = serviceDatabaseUrl(DATABASE_URL, prefix, "workflows");
/** Endpoints per round, each deleted as its deliveries' failures are recorded. */
const ENDPOINTS = 12;
const DELIVERIES = 20;
const ROUNDS = 5;

let db: Sql;
const project = randomUUID();

beforeAll(async () => {
  await migrate(url, "workflows", fileURLToPath(new URL("../drizzle", import.meta.url)));
  db = openDatabase(url, { max: 4 * ENDPOINTS });
});

afterAll(async () => {
  await db?.end({ timeout: 1 });
  await dropDatabases(DATABASE_URL, prefix);
});

/** An endpoint with DELIVERIES due deliveries, claimed: the attempts the dispatcher would record. */
async function claimed(): Promise<{ endpoint: string; attempts: Attempt[] }> {
  const endpoint = randomUUID();
  await webhooksRepo.insertEndpoint(db, { id: endpoint, project_id: project, url: "https://example.com/hook", events: ["*"], description: null, enabled: true, secret: "whsec_x" });
  await webhooksRepo.insertDeliveries(
    db,
    Array.from({ length: DELIVERIES }, (_, i) => ({ id: randomUUID(), endpoint_id: endpoint, project_id: project, event_id: `e${i}`, event_type: "email.sent", body: "{}" })),
  );
  const token = randomUUID();
  const rows = await webhooksRepo.claimDue(db, { limit: DELIVERIES, perEndpoint: DELIVERIES, busy: new Map(), floors: new Map(), token, leaseMs: 60_000 });
  const own = rows.filter((r) => r.endpoint_id === endpoint);
  return {
    endpoint,
    attempts: own.map((r) => ({ id: r.id, token, ok: false, code: 500, body: null, error: null, retryInMs: 1000, disable: null })),
  };
}

describe("deleting an endpoint while its answers are recorded", () => {
  it("never deadlocks: every delete and every recording completes, and nothing of the endpoint is left", { timeout: 120_000 }, async () => {
    for (let round = 0; round < ROUNDS; round++) {
      const endpoints = [];
      for (let i = 0; i < ENDPOINTS; i++) endpoints.push(await claimed());
      expect(endpoints.every((e) => e.attempts.length === DELIVERIES)).toBe(true);
      const calls = endpoints.flatMap(({ endpoint, attempts }) => [
        // the deliveries' answers in two batches, as two dispatcher turns would record them
        webhooksRepo.recordAttempts(db, attempts.slice(0, DELIVERIES / 2).reverse(), 3_600_000),
        webhooksRepo.recordAttempts(db, attempts.slice(DELIVERIES / 2), 3_600_000),
        webhooksRepo.deleteEndpoint(db, project, endpoint),
      ]);
      const settled = await Promise.allSettled(calls);
      expect(settled.filter((s) => s.status === "rejected").map((s) => String((s as PromiseRejectedResult).reason))).toEqual([]);
      const ids = endpoints.map((e) => e.endpoint);
      const [left] = await db<{ n: number }[]>`select count(*)::int as n from webhook_deliveries where endpoint_id = any(${ids}::uuid[])`;
      expect(left!.n).toBe(0);
    }
  });
});
