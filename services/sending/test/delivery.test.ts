import { join } from "node:path";
import { mkdirSync } from "node:fs";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { startMailbox, type Mailbox } from "@mailroom/devmailbox";
import { connect } from "@nats-io/transport-node";
import { jetstream, jetstreamManager } from "@nats-io/jetstream";
import { wireNames } from "@mailroom/contracts";
import { Drain, NATS_URL, Platform, REPO_ROOT, apiClient, startDnsServer, waitFor, type ApiClient, type DnsServer } from "@mailroom/testkit";
import { addZones } from "@mailroom/testkit";
import { uniqueAddress, uniqueDomain, verifiedDomain } from "./helpers.js";

/**
 * A platform of its own (gateway, contacts, sending) with its own SMTP sink, so the relay can be made
 * slow or failing and the sending process killed without touching other test files.
 */
describe("delivery pipeline", () => {
  let mailbox: Mailbox;
  let dns: DnsServer;
  let platform: Platform;
  let api: ApiClient;
  let domain: string;
  let zonesFile: string;
  let projectId: string;
  let drain: Drain;

  beforeAll(async () => {
    mailbox = await startMailbox({ maxMessages: 10_000 });
    platform = new Platform({ services: ["gateway", "contacts", "sending"] });
    const dir = join(REPO_ROOT, ".mailroom", "test-data", platform.prefix);
    mkdirSync(dir, { recursive: true });
    zonesFile = join(dir, "zones.json");
    dns = await startDnsServer({ zonesFile });
    Object.assign(platform.env, { SMTP_URL: mailbox.smtpUrl, DNS_SERVER: dns.address, RETURN_PATH_DOMAIN: "rp.mailroom.test", DOMAIN_RECHECK_INTERVAL_MS: "1000" });
    await platform.start();
    const project = await platform.createProject("delivery");
    projectId = project.id;
    api = apiClient(platform.url, project.secretKey);
    domain = (await verifiedDomain(api, zonesFile)).domain;
    drain = await Drain.open(platform.env);
  });
  afterAll(async () => {
    await drain?.close();
    await platform?.destroy();
    await mailbox?.stop();
    await dns?.stop();
  });

  const send = (to: string | string[]) => api.post("/v1/send", { to, from: `d@${domain}`, subject: "Delivery", body: "<p>d</p>" });
  const statusOf = async (id: string) => (await api.get(`/emails/${id}`)).body.status as string;
  const received = (to: string) => mailbox.messages().filter((m) => m.envelope.rcptTo.includes(to));
  /** Every /v1/send job acknowledged: none is left to be tried (or sent) again. */
  const jobsDone = () => drain.through(wireNames(platform.prefix).consumers.sendingTransactional);

  it("retries a relay's 4xx and delivers once", async () => {
    mailbox.failNext(1, 451, "4.3.0 Try again later");
    const to = uniqueAddress("retry");
    const res = await send(to);
    const id = res.body.data.emails[0].email;
    await waitFor(async () => (await statusOf(id)) === "DELIVERED", { timeoutMs: 15_000, what: "delivery after a 451" });
    await jobsDone();
    expect(received(to)).toHaveLength(1);
  });

  it("marks the email FAILED on a relay's 5xx and does not retry", async () => {
    mailbox.failNext(1, 550, "5.1.1 No such user");
    const to = uniqueAddress("reject");
    const res = await send(to);
    const id = res.body.data.emails[0].email;
    await waitFor(async () => (await statusOf(id)) === "FAILED", { timeoutMs: 15_000, what: "FAILED after a 550" });
    await jobsDone();
    expect(received(to)).toHaveLength(0);
    expect(await statusOf(id)).toBe("FAILED");
  });

  it("fails a queued email unsent when its sender domain is deleted before the retry", async () => {
    const gone = await verifiedDomain(api, zonesFile);
    mailbox.failNext(1, 451, "4.3.0 Try again later");
    const to = uniqueAddress("unsigned");
    const res = await api.post("/v1/send", { to, from: `d@${gone.domain}`, subject: "Gone", body: "<p>g</p>" });
    const id = res.body.data.emails[0].email;
    // The delete lands during the retry's second of backoff, after the first attempt took the 451: the
    // attempt after it claims the record with no key, and nothing may go out unsigned.
    await waitFor(() => mailbox.failuresLeft() === 0, { timeoutMs: 15_000, what: "the first attempt refused" });
    expect((await api.delete(`/domains/${gone.id}`)).status).toBe(204);
    await waitFor(async () => (await statusOf(id)) === "FAILED", { timeoutMs: 15_000, what: "FAILED once the domain is gone" });
    await jobsDone();
    expect(received(to)).toHaveLength(0);
    expect(await statusOf(id)).toBe("FAILED");
  });

  it("delivers every message exactly once when a worker is killed mid-batch and restarted", async () => {
    mailbox.setDelay(1500);
    const recipients = Array.from({ length: 20 }, (_, i) => uniqueAddress(`kill${i}`));
    const res = await send(recipients);
    expect(res.status).toBe(200);
    const ids: string[] = res.body.data.emails.map((e: any) => e.email);
    // Kill while the first messages are in the relay's hands and the rest are queued or leased.
    await waitFor(() => mailbox.messages().some((m) => recipients.includes(m.envelope.rcptTo[0]!)), { timeoutMs: 15_000 });
    await platform.stopService("sending", "SIGKILL");
    mailbox.setDelay(0);
    await platform.startService("sending");

    const mine = await waitFor(
      () => {
        const msgs = mailbox.messages().filter((m) => recipients.includes(m.envelope.rcptTo[0]!));
        return new Set(msgs.map((m) => m.messageId)).size === recipients.length ? msgs : null;
      },
      { timeoutMs: 60_000, intervalMs: 250, what: "every message after the restart" },
    );
    const messageIds = new Set(mine.map((m) => m.messageId));
    // Only a job in flight when the worker died can arrive twice (same Message-ID, so the receiver
    // can drop it): one the relay accepted before SENT was committed. At most one per job in flight
    // (DELIVERY_CONCURRENCY, 16 by default), never a message that was recorded SENT.
    expect(mine.length - messageIds.size).toBeLessThanOrEqual(16);
    expect([...messageIds].sort()).toEqual(ids.map((id) => `<${id}@rp.mailroom.test>`).sort());
    for (const id of ids) {
      await waitFor(async () => (await statusOf(id)) === "DELIVERED", { timeoutMs: 20_000, what: `record ${id} delivered` });
    }
  }, 120_000);

  it("delivers a job queued on SEND_JOBS by a release before the transactional lane (an upgrade loses nothing)", async () => {
    const names = wireNames(platform.prefix);
    const nc = await connect({ servers: NATS_URL });
    try {
      const jsm = await jetstreamManager(nc);
      // A QUEUED record whose job the transactional lane holds and cannot deliver yet.
      mailbox.failNext(1000, 451, "4.3.0 Try again later");
      const to = uniqueAddress("upgrade");
      const res = await send(to);
      const id = res.body.data.emails[0].email as string;
      await waitFor(async () => (await jsm.streams.info(names.streams.transactionalJobs.name)).state.messages === 1, {
        timeoutMs: 15_000,
        what: "the job on TRANSACTIONAL_JOBS",
      });
      await platform.stopService("sending");
      // What the previous release left behind on shutdown: the same record, its job on the subject
      // every job went to then, where the durable `sending-delivery` has always consumed.
      await jsm.streams.purge(names.streams.transactionalJobs.name);
      const legacy = await jetstream(nc).publish(names.subjects.sendJob(projectId), JSON.stringify({ emailId: id, projectId }), { msgID: `legacy-${id}` });
      expect(legacy.stream).toBe(names.streams.sendJobs.name);
      mailbox.failNext(0, 451, "");
      const before = (await jsm.consumers.info(names.streams.sendJobs.name, names.consumers.sendingDelivery)).delivered.consumer_seq;
      await platform.startService("sending");

      await waitFor(async () => (await statusOf(id)) === "DELIVERED", { timeoutMs: 30_000, what: "the legacy job delivered" });
      expect(received(to)).toHaveLength(1);
      const bulk = await jsm.consumers.info(names.streams.sendJobs.name, names.consumers.sendingDelivery);
      expect(bulk.delivered.consumer_seq).toBeGreaterThan(before);
      expect((await jsm.streams.info(names.streams.transactionalJobs.name)).state.messages).toBe(0);
    } finally {
      mailbox.failNext(0, 451, "");
      await nc.close();
    }
  }, 90_000);

  it("verifies a pending domain in the background once its record is published", async () => {
    const created = await api.post("/domains", { domain: uniqueDomain("bg") });
    const dkim = created.body.records.find((r: any) => r.purpose === "dkim");
    addZones(zonesFile, { [dkim.name]: { TXT: [dkim.value] } });
    await waitFor(async () => (await api.get(`/domains/${created.body.id}`)).body.status === "VERIFIED", {
      timeoutMs: 20_000,
      intervalMs: 250,
      what: "the background re-check",
    });
  }, 30_000);
});
