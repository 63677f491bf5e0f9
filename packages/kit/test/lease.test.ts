import { spawn } from "node:child_process";
import { fileURLToPath } from "node:url";
import type postgres from "postgres";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { DATABASE_URL, dropDatabases, runPrefix, waitFor } from "@mailroom/testkit";
import { serviceDatabaseUrl } from "../src/config.js";
import { ensureDatabase, openDatabase } from "../src/db.js";

const LEASE_MS = 600;
const prefix = runPrefix("lease");
const url = serviceDatabaseUrl(DATABASE_URL, prefix, "lease");
let sql: postgres.Sql;

beforeAll(async () => {
  await ensureDatabase(url);
  sql = openDatabase(url, { max: 2 });
  await sql`create table leases (id text primary key, lease_owner text, lease_until timestamptz)`;
  await sql`create table work (token text not null, at timestamptz not null default clock_timestamp())`;
  await sql`insert into leases (id) values ('job')`;
});
afterAll(async () => {
  await sql?.end({ timeout: 1 });
  await dropDatabases(DATABASE_URL, prefix);
});

describe("kit Lease", () => {
  it("a holder stalled past its lease stops once another took over, and writes nothing after", async () => {
    const holder = spawn(process.execPath, [fileURLToPath(new URL("./lease-holder.mjs", import.meta.url))], {
      env: { ...process.env, LEASE_DB: url, LEASE_MS: String(LEASE_MS) },
      stdio: ["ignore", "pipe", "inherit"],
    });
    const exited = new Promise<number | null>((resolve) => holder.once("exit", resolve));
    let out = "";
    holder.stdout.on("data", (d: Buffer) => (out += d));
    try {
      const token = (await waitFor(() => /claimed (\S+)/.exec(out)?.[1], { timeoutMs: 15_000, what: "the holder's claim" }))!;
      // working, and renewing: the lease outlives its first length
      await waitFor(async () => (await sql`select 1 from work having count(*) >= 3`).length > 0, { what: "the holder's first writes" });
      const [claimed] = await sql<{ until: Date }[]>`select lease_until as until from leases`;
      await waitFor(async () => (await sql`select 1 from leases where lease_until > ${claimed!.until}`).length > 0, { what: "a renewal" });

      holder.kill("SIGSTOP");
      await waitFor(async () => (await sql`select 1 from leases where lease_until < now()`).length > 0, { timeoutMs: 5000, intervalMs: 20, what: "the stalled holder's lease to expire" });
      // another holder takes the job over (as a second replica's claim would)
      const [taken] = await sql<{ at: Date }[]>`
        update leases set lease_owner = 'successor', lease_until = now() + interval '1 hour' where lease_until < now() returning clock_timestamp() as at`;
      expect(taken).toBeDefined();
      holder.kill("SIGCONT");

      expect(await exited).toBe(0);
      expect(out).toMatch(/stopped by (renewal|write)/);
      const [after] = await sql`select count(*)::int as n from work where token = ${token} and at >= ${taken!.at}`;
      expect(after!.n).toBe(0);
      // the stalled holder gave back nothing that was no longer its own
      const [lease] = await sql`select lease_owner from leases`;
      expect(lease!.lease_owner).toBe("successor");
    } finally {
      holder.kill("SIGKILL");
    }
  });
});
