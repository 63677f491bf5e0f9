import { describe, expect, it } from "vitest";
import { GatewayEnv, oidcSettings } from "./config.js";

describe("gateway configuration of accounts", () => {
  it("has OpenID Connect off unless issuer, client id and secret are all set", () => {
    expect(oidcSettings(GatewayEnv.parse({}))).toBeNull();
    expect(oidcSettings(GatewayEnv.parse({ OIDC_ISSUER: "", OIDC_CLIENT_ID: "", OIDC_CLIENT_SECRET: "" }))).toBeNull();
    expect(oidcSettings(GatewayEnv.parse({ OIDC_ISSUER: "https://id.example.com", OIDC_CLIENT_ID: "mailroom" }))).toBeNull();
    expect(oidcSettings(GatewayEnv.parse({ OIDC_ISSUER: " https://id.example.com ", OIDC_CLIENT_ID: "mailroom", OIDC_CLIENT_SECRET: "s3cret" }))).toEqual({
      issuer: "https://id.example.com",
      clientId: "mailroom",
      clientSecret: "s3cret",
    });
  });

  it("refuses an issuer that is no URL", () => {
    expect(GatewayEnv.safeParse({ OIDC_ISSUER: "not a url" }).success).toBe(false);
  });

  it("defaults sessions to 7 days idle and 30 days in all", () => {
    const c = GatewayEnv.parse({});
    expect(c.SESSION_IDLE_MS).toBe(7 * 86_400_000);
    expect(c.SESSION_MAX_MS).toBe(30 * 86_400_000);
    expect(c.LOGIN_MAX_FAILURES).toBe(10);
    expect(c.LOGIN_FAILURE_WINDOW_MS).toBe(15 * 60_000);
  });

  it("refuses CSV imports past 1 GB unless a deployment sets a lower bound", () => {
    expect(GatewayEnv.parse({}).CONTACT_IMPORT_MAX_BYTES).toBe(1024 ** 3);
    expect(GatewayEnv.parse({ CONTACT_IMPORT_MAX_BYTES: "2048" }).CONTACT_IMPORT_MAX_BYTES).toBe(2048);
    expect(GatewayEnv.safeParse({ CONTACT_IMPORT_MAX_BYTES: String(1024 ** 3 + 1) }).success).toBe(false);
  });
});
