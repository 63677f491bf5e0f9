import { describe, expect, it } from "vitest";
import { spawnSync } from "node:child_process";
import { join } from "node:path";
import { REPO_ROOT } from "@mailroom/testkit";
import { randomBytes } from "node:crypto";
import { loadConfig, ConfigError, resolveSecret, serviceDatabaseUrl } from "../src/config.js";

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

  it("gives consumers a 30 s ack wait unless CONSUMER_ACK_WAIT_MS says otherwise, a second at least", () => {
    expect(loadConfig("campaigns", undefined, {}).CONSUMER_ACK_WAIT_MS).toBe(30_000);
    expect(loadConfig("campaigns", undefined, { CONSUMER_ACK_WAIT_MS: "3000" }).CONSUMER_ACK_WAIT_MS).toBe(3000);
    expect(() => loadConfig("campaigns", undefined, { CONSUMER_ACK_WAIT_MS: "500" })).toThrow(/CONSUMER_ACK_WAIT_MS/);
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

  it("requires MAILROOM_SECRET in production", () => {
    expect(() => resolveSecret({ NODE_ENV: "production" })).toThrow(/MAILROOM_SECRET/);
    expect(resolveSecret({ MAILROOM_SECRET: "x".repeat(32) })).toBe("x".repeat(32));
  });

  it("takes NATS credentials as a user and password together, or a creds file, not both", () => {
    const c = loadConfig("verify", undefined, { NATS_USER: "mailroom-verify", NATS_PASSWORD: "pw" });
    expect([c.NATS_USER, c.NATS_PASSWORD, c.NATS_CREDS]).toEqual(["mailroom-verify", "pw", undefined]);
    expect(() => loadConfig("verify", undefined, { NATS_USER: "mailroom-verify" })).toThrow(/NATS_USER, NATS_PASSWORD: set both/);
    expect(() => loadConfig("verify", undefined, { NATS_PASSWORD: "pw" })).toThrow(/NATS_USER, NATS_PASSWORD: set both/);
    expect(() => loadConfig("verify", undefined, { NATS_USER: "u", NATS_PASSWORD: "p", NATS_CREDS: "/x.creds" })).toThrow(/NATS_CREDS/);
    expect(loadConfig("verify", undefined, { NATS_CREDS: "/etc/nats/verify.creds" }).NATS_CREDS).toBe("/etc/nats/verify.creds");
  });
});

describe("MAILROOM_SECRET in production", () => {
  const production = (secret: string | undefined) => ({ NODE_ENV: "production", ...(secret === undefined ? {} : { MAILROOM_SECRET: secret }) });
  const generated = randomBytes(48).toString("base64");

  it("starts with a generated secret of 32 bytes or more", () => {
    expect(() => loadConfig("verify", undefined, production(generated))).not.toThrow();
    expect(resolveSecret(production(generated))).toBe(generated);
    const exactly32 = randomBytes(16).toString("hex");
    expect(() => loadConfig("gateway", undefined, production(exactly32))).not.toThrow();
  });

  it.each([
    ["missing", undefined, /MAILROOM_SECRET is required/],
    ["empty", "", /MAILROOM_SECRET is required/],
    ["31 bytes", randomBytes(16).toString("hex").slice(0, 31), /at least 32 bytes .*it has 31/],
    ["16 characters, as development allows", "0123456789abcdef", /at least 32 bytes/],
    ["the value docker-compose used to default to", "compose-development-secret-do-not-use-in-production", /example or a placeholder/],
    ["that value with other case and spaces", "  Compose-Development-Secret-Do-Not-Use-In-Production ", /example or a placeholder/],
    ["a placeholder", "please-change-me-to-something-long-and-random", /example or a placeholder/],
    ["one character repeated", "x".repeat(64), /example or a placeholder/],
  ])("refuses a secret that is %s, naming the variable", (_label, secret, message) => {
    for (const service of ["gateway", "contacts", "verify"] as const) {
      expect(() => loadConfig(service, undefined, production(secret))).toThrow(ConfigError);
      expect(() => loadConfig(service, undefined, production(secret))).toThrow(message);
    }
    expect(() => resolveSecret(production(secret))).toThrow(message);
  });

  it("counts bytes, not characters", () => {
    // 16 characters of 2 bytes each: 32 bytes, enough; 15 of them (30 bytes) are not.
    const accented = "éàüöñçøåßþðæœĳŋŧ";
    expect([accented.length, Buffer.byteLength(accented)]).toEqual([16, 32]);
    expect(() => loadConfig("verify", undefined, production(accented))).not.toThrow();
    expect(() => loadConfig("verify", undefined, production(accented.slice(0, 15)))).toThrow(/at least 32 bytes/);
  });

  it("never repeats the refused value in the message", () => {
    const weak = "short-but-secret-value";
    expect(() => loadConfig("verify", undefined, production(weak))).toThrow(ConfigError);
    try {
      loadConfig("verify", undefined, production(weak));
    } catch (err) {
      expect(String((err as Error).message)).not.toContain(weak);
    }
  });

  it("does not apply outside production", () => {
    expect(() => loadConfig("verify", undefined, { NODE_ENV: "test", MAILROOM_SECRET: "0123456789abcdef" })).not.toThrow();
    expect(() => loadConfig("verify", undefined, { NODE_ENV: "development" })).not.toThrow();
  });

  it("makes a production service exit 1 at start with a message naming MAILROOM_SECRET", () => {
    const r = spawnSync(process.execPath, [join(REPO_ROOT, "services/verify/dist/main.js")], {
      env: { ...process.env, NODE_ENV: "production", MAILROOM_SECRET: "compose-development-secret-do-not-use-in-production" },
      encoding: "utf8",
      timeout: 10_000,
    });
    expect(r.status).toBe(1);
    expect(r.stderr).toMatch(/MAILROOM_SECRET/);
    expect(r.stderr).not.toContain("compose-development-secret-do-not-use-in-production");
    expect(r.stderr).not.toMatch(/at .*\.js:\d+/);
  });
});
