import { join } from "node:path";
import { mkdirSync } from "node:fs";
import type { TestProject } from "vitest/node";
import { startMailbox } from "@mailroom/devmailbox";
import { Platform, REPO_ROOT, startDnsServer, startFakeRspamd, startWebhookSink } from "@mailroom/testkit";

/**
 * Starts, once per run, the whole platform as separate processes against the real NATS, PostgreSQL
 * and Redis under a fresh prefix, with an SMTP sink and a DNS server on loopback; every test file
 * makes its own project (tenant) on it. Teardown drops the run's databases and streams.
 */
export default async function setup(project: TestProject) {
  const mailbox = await startMailbox({ smtpPort: 0, httpPort: 0, maxMessages: 100_000 });
  const platform = new Platform();
  const dataDir = join(REPO_ROOT, ".mailroom", "test-data", platform.prefix);
  mkdirSync(dataDir, { recursive: true });
  const zonesFile = join(dataDir, "zones.json");
  const dns = await startDnsServer({ zonesFile });
  // A webhook endpoint on loopback that every file can point endpoints at (the dashboard's Webhooks
  // page sends to it): listed by host and port, it is the only loopback address the platform calls.
  const webhookSink = await startWebhookSink();
  // The pre-send checks' spam score (there is no rspamd on a test machine): verdicts by marker.
  const rspamd = await startFakeRspamd();
  Object.assign(platform.env, {
    SMTP_URL: mailbox.smtpUrl,
    DNS_SERVER: dns.address,
    RETURN_PATH_DOMAIN: "bounces.mailroom.test",
    // small enough that services/contacts/test/imports.test.ts sends a body past it quickly
    CONTACT_IMPORT_MAX_BYTES: String(1024 * 1024),
    WEBHOOK_ALLOWED_HOSTS: `127.0.0.1:${webhookSink.port}`,
    RSPAMD_URL: rspamd.url,
    // a slow-rspamd test waits this long, not the 3 s default
    RSPAMD_TIMEOUT_MS: "1500",
  });
  try {
    await platform.start();
  } catch (err) {
    await platform.destroy();
    await mailbox.stop();
    await dns.stop();
    await webhookSink.close();
    await rspamd.close();
    throw err;
  }
  project.provide("platform", {
    url: platform.url,
    prefix: platform.prefix,
    env: platform.env,
    mailboxUrl: mailbox.webUrl,
    smtpUrl: mailbox.smtpUrl,
    dnsAddress: dns.address,
    zonesFile,
    webhookSinkUrl: webhookSink.url,
    rspamdUrl: rspamd.url,
  });
  return async () => {
    await platform.destroy();
    await mailbox.stop();
    await dns.stop();
    await webhookSink.close();
    await rspamd.close();
  };
}
