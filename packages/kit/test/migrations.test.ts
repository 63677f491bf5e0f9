import { afterAll, describe, expect, it } from "vitest";
import postgres from "postgres";
import { readFileSync } from "node:fs";
import { join } from "node:path";
import { DATABASE_URL, REPO_ROOT, dropDatabases, runCli, runPrefix } from "@mailroom/testkit";
import { serviceDatabaseUrl } from "../src/config.js";

const prefix = runPrefix("mig");
afterAll(() => dropDatabases(DATABASE_URL, prefix));

describe("migrations", () => {
  it("apply exactly once when two processes migrate at the same moment", async () => {
    const env = { DB_PREFIX: prefix, NATS_PREFIX: prefix };
    const outputs = await Promise.all([runCli(["migrate", "--json"], env), runCli(["migrate", "--json"], env)]);
    for (const out of outputs) expect(JSON.parse(out).migrated).toContain("gateway");
    const journal = JSON.parse(readFileSync(join(REPO_ROOT, "services/gateway/drizzle/meta/_journal.json"), "utf8"));
    const sql = postgres(serviceDatabaseUrl(DATABASE_URL, prefix, "gateway"), { max: 1, onnotice: () => undefined });
    try {
      const rows = await sql`select hash from public.gateway_migrations`;
      expect(rows.length).toBe(journal.entries.length);
      const tables = await sql`select table_name from information_schema.tables where table_schema = 'public' order by 1`;
      expect(tables.map((t) => t.table_name)).toEqual(expect.arrayContaining(["api_keys", "idempotency_keys", "outbox", "projects"]));
    } finally {
      await sql.end();
    }
    // A third run finds nothing to do and still succeeds.
    expect(JSON.parse(await runCli(["migrate", "--json"], env)).migrated).toContain("gateway");
  });
});
