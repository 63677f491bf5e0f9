import { describe, expect, it } from "vitest";
import { GatewayEnv, oidcSettings, relaySettings } from "./config.js";

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

describe("gateway configuration of the SMTP relay", () => {
  it("is off without a certificate unless insecure, and then on the submission port alone", () => {
    expect(relaySettings(GatewayEnv.parse({}))).toBeNull();
    expect(relaySettings(GatewayEnv.parse({ SMTP_RELAY_TLS_CERT: "cert.pem" }))).toBeNull();
    expect(relaySettings(GatewayEnv.parse({ SMTP_RELAY_INSECURE: "true", SMTP_RELAY_PORT: "2587" }))).toMatchObject({ port: 2587, tlsPort: null, tls: null, insecure: true });
  });

  it("listens on 587 and 465 with a certificate, with 25 MB messages, and takes off for a listener", () => {
    const on = relaySettings(GatewayEnv.parse({ SMTP_RELAY_TLS_CERT: "c.pem", SMTP_RELAY_TLS_KEY: "k.pem", PUBLIC_URL: "https://mail.example.com" }));
    expect(on).toMatchObject({ port: 587, tlsPort: 465, tls: { cert: "c.pem", key: "k.pem" }, insecure: false, maxBytes: 25 * 1024 * 1024, name: "mail.example.com" });
    expect(relaySettings(GatewayEnv.parse({ SMTP_RELAY_TLS_CERT: "c", SMTP_RELAY_TLS_KEY: "k", SMTP_RELAY_PORT: "off" }))).toMatchObject({ port: null, tlsPort: 465 });
    expect(GatewayEnv.safeParse({ SMTP_RELAY_PORT: "smtp" }).success).toBe(false);
  });
});
