import { execFile } from "node:child_process";
import { cpSync, mkdtempSync, readdirSync, readFileSync, rmSync } from "node:fs";
import { tmpdir } from "node:os";
import { basename, dirname, join } from "node:path";
import { promisify } from "node:util";
import postgres from "postgres";
import { afterAll, describe, expect, it } from "vitest";
import { SERVICE_NAMES, SERVICES } from "@mailroom/contracts";
import { DATABASE_URL, REPO_ROOT, dropDatabases, runPrefix } from "@mailroom/testkit";
import { serviceDatabaseUrl } from "../src/config.js";
import { migrate } from "../src/db.js";

/*
 * Each service's tables are declared once, in src/db/schema.ts; drizzle-kit writes the migrations
 * from it and keeps a snapshot per migration of what it last wrote. If a migration is written by
 * hand, or its snapshot is not committed, the next `drizzle-kit generate` compares against an old
 * snapshot and writes again what installations have already run. So, for every service: a fresh
 * database migrates, holds the columns of the newest snapshot, and `drizzle-kit generate` over a copy
 * of the committed folder finds nothing to write.
 */
const prefix = runPrefix("snap");
const work = mkdtempSync(join(tmpdir(), "mailroom-drizzle-"));
const run = promisify(execFile);
afterAll(async () => {
  rmSync(work, { recursive: true, force: true });
  await dropDatabases(DATABASE_URL, prefix);
});

type Snapshot = { tables: Record<string, { name: string; columns: Record<string, { name: string; type: string; notNull: boolean }> }> };

const services = SERVICE_NAMES.filter((name) => SERVICES[name].database);

describe.each(services)("%s's migrations", (service) => {
  const folder = join(REPO_ROOT, "services", service, "drizzle");
  const journal = JSON.parse(readFileSync(join(folder, "meta", "_journal.json"), "utf8")) as { entries: { idx: number; tag: string }[] };

  it("have one snapshot each", () => {
    const snapshots = readdirSync(join(folder, "meta")).filter((f) => f.endsWith("_snapshot.json")).sort();
    expect(snapshots).toEqual(journal.entries.map((e) => `${e.tag.slice(0, 4)}_snapshot.json`));
  });

  it("build on a fresh database the tables of the newest snapshot", async () => {
    const url = serviceDatabaseUrl(DATABASE_URL, prefix, service);
    await migrate(url, service, folder);
    const newest = JSON.parse(readFileSync(join(folder, "meta", `${journal.entries.at(-1)!.tag.slice(0, 4)}_snapshot.json`), "utf8")) as Snapshot;
    const expected = Object.values(newest.tables)
      .flatMap((t) => Object.values(t.columns).map((c) => `${t.name}.${c.name} ${c.type}${c.notNull ? " not null" : ""}`))
      .sort();
    const sql = postgres(url, { max: 1, onnotice: () => undefined });
    try {
      const rows = await sql<{ column: string }[]>`
        select c.relname || '.' || a.attname || ' ' || format_type(a.atttypid, a.atttypmod) || case when a.attnotnull then ' not null' else '' end as column
        from pg_attribute a join pg_class c on c.oid = a.attrelid join pg_namespace n on n.oid = c.relnamespace
        where n.nspname = 'public' and c.relkind in ('r', 'p') and a.attnum > 0 and not a.attisdropped
          and c.relname <> ${`${service}_migrations`}`;
      expect(rows.map((r) => r.column).sort()).toEqual(expected);
    } finally {
      await sql.end();
    }
  });

  it("leave drizzle-kit generate nothing to write", async () => {
    const out = join(work, service);
    cpSync(folder, out, { recursive: true });
    // drizzle-kit reads `--out` relative to its working directory.
    const { stdout } = await run(
      join(REPO_ROOT, "node_modules", ".bin", "drizzle-kit"),
      ["generate", "--dialect", "postgresql", "--schema", join(REPO_ROOT, "services", service, "src", "db", "schema.ts"), "--out", basename(out)],
      { cwd: dirname(out), encoding: "utf8" },
    );
    expect(stdout).toContain("No schema changes, nothing to migrate");
    expect(readdirSync(out).sort()).toEqual(readdirSync(folder).sort());
    expect(readFileSync(join(out, "meta", "_journal.json"), "utf8")).toBe(readFileSync(join(folder, "meta", "_journal.json"), "utf8"));
  });
});
