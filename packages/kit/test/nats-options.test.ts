import { mkdtempSync, rmSync, writeFileSync } from "node:fs";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { describe, expect, it } from "vitest";
import { ConfigError } from "../src/config.js";
import { natsConnectOptions, type NatsSettings } from "../src/nats.js";

const base: NatsSettings = { NODE_ENV: "production", NATS_URL: "nats://a:4222, nats://b:4222", NATS_PREFIX: "acme", service: "campaigns" };

describe("NATS connection options", () => {
  it("connect as the configured user, with replies on the service's own inbox prefix", () => {
    const o = natsConnectOptions({ ...base, NATS_USER: "acme-campaigns", NATS_PASSWORD: "pw" }, "mailroom-campaigns");
    expect(o).toMatchObject({
      servers: ["nats://a:4222", "nats://b:4222"],
      name: "mailroom-campaigns",
      user: "acme-campaigns",
      pass: "pw",
      inboxPrefix: "_INBOX.acme.campaigns",
    });
    expect(o.authenticator).toBeUndefined();
  });

  it("carry no credentials when none are configured", () => {
    const o = natsConnectOptions(base, "x");
    expect([o.user, o.pass, o.authenticator]).toEqual([undefined, undefined, undefined]);
  });

  it("read a creds file into an authenticator, and name NATS_CREDS when it cannot be read", () => {
    const dir = mkdtempSync(join(tmpdir(), "mailroom-creds-"));
    try {
      const file = join(dir, "campaigns.creds");
      writeFileSync(file, "-----BEGIN NATS USER JWT-----\neyJ0eXAiOiJKV1QifQ.e30.sig\n------END NATS USER JWT------\n");
      expect(typeof natsConnectOptions({ ...base, NATS_CREDS: file }, "x").authenticator).toBe("function");
      const missing = join(dir, "missing.creds");
      expect(() => natsConnectOptions({ ...base, NATS_CREDS: missing }, "x")).toThrow(ConfigError);
      expect(() => natsConnectOptions({ ...base, NATS_CREDS: missing }, "x")).toThrow(/NATS_CREDS: cannot read .*missing\.creds \(ENOENT\)/);
    } finally {
      rmSync(dir, { recursive: true, force: true });
    }
  });
});
