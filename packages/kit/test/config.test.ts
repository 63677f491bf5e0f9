import { describe, expect, it } from "vitest";
import { spawnSync } from "node:child_process";
import { join } from "node:path";
import { REPO_ROOT } from "@mailroom/testkit";
import { loadConfig, ConfigError, serviceDatabaseUrl } from "../src/config.js";

describe("configuration", () => {
  it("derives each service's database and honours the per-service override", () => {
    const c = loadConfig("contacts", undefined, { DATABASE_URL: "postgres://u@db:5432/postgres", DB_PREFIX: "acme" });
    expect(c.databaseUrl).toBe("postgres://u@db:5432/acme_contacts");
    const o = loadConfig("contacts", undefined, { CONTACTS_DATABASE_URL: "postgres://x@other/db1" });
    expect(o.databaseUrl).toBe("postgres://x@other/db1");
    expect(serviceDatabaseUrl("postgres://a@b/c", "p", "sending")).toBe("postgres://a@b/p_sending");
  });

  it("names the bad variable", () => {
    expect(() => loadConfig("gateway", undefined, { NATS_PREFIX: "has space" })).toThrow(ConfigError);
    expect(() => loadConfig("gateway", undefined, { NATS_PREFIX: "has space" })).toThrow(/NATS_PREFIX/);
    expect(() => loadConfig("contacts", undefined, { DB_PREFIX: "Upper" })).toThrow(/DB_PREFIX/);
    expect(() => loadConfig("verify", undefined, { RPC_TIMEOUT_MS: "soon" })).toThrow(/RPC_TIMEOUT_MS/);
  });

  it("makes a service exit 1 with a message naming the variable", () => {
    const r = spawnSync(process.execPath, [join(REPO_ROOT, "services/verify/dist/main.js")], {
      env: { ...process.env, NATS_PREFIX: "bad prefix!" },
      encoding: "utf8",
      timeout: 10_000,
    });
    expect(r.status).toBe(1);
    expect(r.stderr).toMatch(/NATS_PREFIX/);
    expect(r.stderr).not.toMatch(/at .*\.js:\d+/); // a message, not a stack trace
  });

  it("requires MAILROOM_SECRET in production", async () => {
    const { resolveSecret } = await import("../src/config.js");
    expect(() => resolveSecret({ NODE_ENV: "production" })).toThrow(/MAILROOM_SECRET/);
    expect(resolveSecret({ MAILROOM_SECRET: "x".repeat(32) })).toBe("x".repeat(32));
  });
});
