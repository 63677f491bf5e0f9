import { spawn } from "node:child_process";
import { randomUUID } from "node:crypto";
import postgres from "postgres";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { connect, type NatsConnection } from "@nats-io/transport-node";
import { jetstream, jetstreamManager } from "@nats-io/jetstream";
import { wireNames, type EventEnvelope } from "@mailroom/contracts";
import { serviceDatabaseUrl } from "@mailroom/kit";
import { DATABASE_URL, REPO_ROOT, waitFor } from "@mailroom/testkit";
import { newProject, sharedPlatform } from "@mailroom/testkit/shared";
import { messagesTo, uniqueAddress, verifiedDomain } from "./helpers.js";

/**
 * A complaint is the recipient's word: a /v1/send (or any call made with an API key) that
 * resubscribes the contact lifts a bounce suppression, never a complaint (decisions.md §12); nor
 * does any link in an email, since the tenant writes the email; only the operator does (§15).
 * Marketing mail is what a suppression stops, so each case ends with a marketing enqueue.
 */
type Project = Awaited<ReturnType<typeof newProject>>;
let p: Project;
let domain: string;
let nc: NatsConnection;
let sending: postgres.Sql;
const names = () => wireNames(sharedPlatform().prefix);

beforeAll(async () => {
  p = await newProject("lift");
  domain = (await verifiedDomain(p.api)).domain;
  nc = await connect({ servers: sharedPlatform().env.NATS_URL });
  sending = postgres(serviceDatabaseUrl(DATABASE_URL, sharedPlatform().prefix, "sending"), { max: 1, onnotice: () => undefined });
});
afterAll(async () => {
  await nc?.close();
  await sending?.end();
});

/** An address with an email sent to it, then the feedback as the inbound path records it. */
async function suppressed(reason: "bounce" | "complaint") {
  const to = uniqueAddress(reason);
  const sent = await p.api.post("/v1/send", { to, from: `news@${domain}`, subject: "First", body: "<p>1</p>", subscribed: true });
  expect(sent.status).toBe(200);
  const { email: emailId, contact } = sent.body.data.emails[0];
  await sending`
    insert into suppressions (project_id, email, reason, email_id, created_at) values (${p.id}, ${to}, ${reason}, ${emailId}, now())`;
  expect((await p.api.patch(`/contacts/${contact.id}`, { subscribed: false })).status).toBe(200);
  return { to, contactId: contact.id as string };
}

/** Waits until the sending service's suppression consumer has handled the contact's contact.subscribed event. */
async function suppressionConsumerHandled(contactId: string) {
  const n = names();
  const seq = await waitFor(async () => {
    const consumer = await jetstream(nc).consumers.get(n.streams.events.name, { filter_subjects: n.subjects.event("contact", p.id) });
    const info = await consumer.info(true);
    let found = 0;
    let left = info.num_pending;
    while (left > 0) {
      const batch = await consumer.fetch({ max_messages: Math.min(left, 256), expires: 2000 });
      for await (const m of batch) {
        const e = m.json<EventEnvelope>();
        if (e.name === "contact.subscribed" && e.contactId === contactId) found = m.seq;
        left = m.info.pending;
      }
    }
    return found || null;
  }, { timeoutMs: 15_000, intervalMs: 200, what: "the contact.subscribed event" });
  const jsm = await jetstreamManager(nc);
  await waitFor(async () => (await jsm.consumers.info(n.streams.events.name, n.consumers.sendingSuppression)).ack_floor.stream_seq >= seq, {
    timeoutMs: 15_000,
    intervalMs: 100,
    what: "the suppression consumer to handle the event",
  });
}

/** A marketing email (campaign mail) to `to`: its status once queued. */
async function marketingStatus(to: string, contactId: string): Promise<string> {
  const reply = await nc.request(
    `${sharedPlatform().prefix}.rpc.sending.enqueue`,
    JSON.stringify({
      projectId: p.id,
      source: { type: "CAMPAIGN", campaignId: randomUUID() },
      idempotencyKey: `lift:${randomUUID()}`,
      to,
      contactId,
      from: `news@${domain}`,
      subject: "News",
      body: '<p>News</p><a href="{{ unsubscribeUrl }}">unsubscribe</a>',
      data: {},
      marketing: true,
    }),
    { timeout: 5000 },
  );
  const answer = JSON.parse(new TextDecoder().decode(reply.data));
  expect(answer.ok, JSON.stringify(answer)).toBe(true);
  return (await p.api.get(`/emails/${answer.result.emailId}`)).body.status;
}

describe("resubscribing through /v1/send", () => {
  it("lifts a bounce suppression but never a complaint", async () => {
    const complained = await suppressed("complaint");
    const bounced = await suppressed("bounce");
    const res = await p.api.post("/v1/send", {
      to: [complained.to, bounced.to],
      from: `news@${domain}`,
      subject: "Resubscribe",
      body: "<p>2</p>",
      subscribed: true,
    });
    expect(res.status).toBe(200);
    // transactional mail goes to both: a complaint never held it, and the bounce was lifted at once
    await messagesTo(complained.to, 2);
    await messagesTo(bounced.to, 2);
    expect((await p.api.get(`/contacts/${complained.contactId}`)).body.subscribed).toBe(true);
    await suppressionConsumerHandled(complained.contactId);
    await suppressionConsumerHandled(bounced.contactId);

    expect(await marketingStatus(complained.to, complained.contactId)).toBe("FAILED");
    expect(await marketingStatus(bounced.to, bounced.contactId)).not.toBe("FAILED");
  });

  it("leaves a complaint in place when a secret key resubscribes the contact, too", async () => {
    const complained = await suppressed("complaint");
    expect((await p.api.patch(`/contacts/${complained.contactId}`, { subscribed: true })).status).toBe(200);
    await suppressionConsumerHandled(complained.contactId);
    expect(await marketingStatus(complained.to, complained.contactId)).toBe("FAILED");
  });
});

/** `npx mailroom …` from the repository root, as an operator runs it on a fresh clone. */
function mailroom(args: string[]): Promise<string> {
  return new Promise((resolve, reject) => {
    const child = spawn("npx", ["mailroom", ...args], { cwd: REPO_ROOT, env: { ...process.env, ...sharedPlatform().env }, stdio: ["ignore", "pipe", "pipe"] });
    let out = "";
    let err = "";
    child.stdout.on("data", (d) => (out += d));
    child.stderr.on("data", (d) => (err += d));
    child.on("exit", (code) => (code === 0 ? resolve(out) : reject(new Error(`mailroom ${args.join(" ")} exited ${code}: ${err}`))));
  });
}

describe("a complaint", () => {
  it("is lifted by no link a tenant can put in an email, only by the operator", async () => {
    const complained = await suppressed("complaint");
    // the tenant mails a subscribe link, worded as it likes, and the recipient clicks it
    const sent = await p.api.post("/v1/send", {
      to: complained.to,
      from: `news@${domain}`,
      subject: "Keep your account",
      body: '<p>Click to keep your account open</p><a href="{{ subscribeUrl }}">Keep it</a>',
    });
    expect(sent.status).toBe(200);
    const mail = (await messagesTo(complained.to, 2)).find((m) => m.subject === "Keep your account")!;
    const link = /href="([^"]*\/s\/[^"]+)"/.exec(String(mail.html))![1]!;
    const clicked = await fetch(`${sharedPlatform().url}${new URL(link).pathname}`, { method: "POST" });
    expect(clicked.status).toBe(200);
    expect((await p.api.get(`/contacts/${complained.contactId}`)).body.subscribed).toBe(true);
    await suppressionConsumerHandled(complained.contactId);
    expect(await marketingStatus(complained.to, complained.contactId)).toBe("FAILED");

    const bad = mailroom(["suppressions", "lift", "--project", p.id, "--email", "not an address"]);
    await expect(bad).rejects.toThrow(/exited 2/);
    const lifted = JSON.parse(await mailroom(["suppressions", "lift", "--project", p.id, "--email", complained.to.toUpperCase(), "--json"]));
    expect(lifted).toEqual({ lifted: ["complaint"] });
    expect(await marketingStatus(complained.to, complained.contactId)).not.toBe("FAILED");
    expect(JSON.parse(await mailroom(["suppressions", "lift", "--project", p.id, "--email", complained.to, "--json"]))).toEqual({ lifted: [] });
  });
});
