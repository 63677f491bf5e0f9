// emailsRepo.insertQueuedMany: the records of a /v1/send (or a campaign page) and their outbox rows in
// one statement, which must write each email's job or event if and only if it writes that email.
import { afterAll, describe, expect, it } from "vitest";
import { randomUUID } from "node:crypto";
import { wireNames } from "@mailroom/contracts";
import { eventBatches, openDatabase, outboxRows, writtenGroups } from "@mailroom/kit";
import { sharedPlatform } from "@mailroom/testkit/shared";
import { deliveriesRepo } from "../src/db/deliveries-repo.js";
import { emailsRepo, type NewEmail } from "../src/db/emails-repo.js";
import { suppressionsRepo } from "../src/db/suppressions-repo.js";
import { SuppressionChecks } from "../src/usecases/lookups.js";

const url = new URL(sharedPlatform().env.DATABASE_URL!);
url.pathname = `/${sharedPlatform().prefix}_sending`;
const db = openDatabase(url.toString(), { max: 1 });
afterAll(() => db.end());

const projectId = randomUUID();
const email = (idempotencyKey: string | null): NewEmail => {
  const id = randomUUID();
  return {
    id,
    projectId,
    contactId: randomUUID(),
    to: `${id.slice(0, 8)}@example.com`,
    toName: null,
    from: "a@mailroom.test",
    fromName: null,
    replyTo: null,
    subject: "s",
    html: "<p>it's \"quoted\" \\ ünïcode</p>",
    headers: {},
    marketing: false,
    messageId: `<${id}@bounces.mailroom.test>`,
    attachmentIds: [],
    templateId: null,
    campaignId: null,
    workflowId: null,
    executionId: null,
    sourceType: "CAMPAIGN",
    idempotencyKey,
    links: [],
  };
};
/** Two messages per email, as a suppressed email has its event and a queued one its job. */
const outboxOf = (emails: NewEmail[]) => {
  const messages = emails.flatMap((e) => [0, 1].map((i) => ({ id: randomUUID(), subject: `test.queue.${i}`, payload: { emailId: e.id } })));
  return { messages, json: outboxRows(messages, emails.flatMap((e) => [e.id, e.id])).json };
};
const outboxIds = async (ids: string[]) => (await db`select id from outbox where id = any(${ids}::uuid[])`).map((r) => r.id as string);

describe("emailsRepo.insertQueuedMany", () => {
  it("writes every record with its outbox rows, and skips a record whose key has one, with its rows", async () => {
    const first = [email("k1"), email("k2")];
    const one = outboxOf(first);
    expect(await emailsRepo.insertQueuedMany(db, first, one.json)).toEqual(new Set(first.map((e) => e.id)));
    expect((await outboxIds(one.messages.map((m) => m.id))).sort()).toEqual(one.messages.map((m) => m.id).sort());

    const again = [email("k2"), email("k3"), email(null)];
    const two = outboxOf(again);
    expect(await emailsRepo.insertQueuedMany(db, again, two.json)).toEqual(new Set([again[1]!.id, again[2]!.id]));
    expect((await outboxIds(two.messages.map((m) => m.id))).sort()).toEqual(two.messages.slice(2).map((m) => m.id).sort());
    expect(await db`select 1 from emails where id = ${again[0]!.id}`).toHaveLength(0);
    await db`delete from outbox where id = any(${[...one.messages, ...two.messages].map((m) => m.id)}::uuid[])`;
  });

  it("writes nothing when a part fails: the statement is one transaction", async () => {
    const emails = [email(null), email(null)];
    const { json } = outboxOf(emails);
    const bad = json.replace(/"id":"[^"]+"/, '"id":"not-a-uuid"');
    await expect(emailsRepo.insertQueuedMany(db, emails, bad)).rejects.toThrow(/uuid/);
    expect(await db`select 1 from emails where id = any(${emails.map((e) => e.id)}::uuid[])`).toHaveLength(0);
  });
});

describe("deliveriesRepo.markSentMany", () => {
  const names = wireNames(sharedPlatform().prefix);
  /** An email.sent per email, as the delivery worker batches them. */
  const sentEvents = (emails: NewEmail[], at: Date) =>
    eventBatches(
      names,
      emails.map((e) => ({
        owner: e.id,
        event: { id: randomUUID(), projectId, name: "email.sent", family: "email" as const, contactId: e.contactId, email: e.to, data: { emailId: e.id }, occurredAt: at.toISOString() },
      })),
    );
  const sentCount = async () =>
    (await db<{ n: number }[]>`select coalesce(sum(sent), 0)::int as n from email_stats_hourly where project_id = ${projectId}`)[0]!.n;

  it("moves QUEUED records with their event batch and counters, and writes neither for a record already moved", async () => {
    const emails = [email(null), email(null)];
    await emailsRepo.insertQueuedMany(db, emails, "[]");
    // a worker's claim: SENT is written only under the lease's token
    const token = randomUUID();
    await deliveriesRepo.claimMany(db, emails.map((e) => e.id), token, 60_000);
    await db`update emails set status = 'FAILED' where id = ${emails[1]!.id}`;
    const at = new Date();
    const before = await sentCount();
    const { json, groups } = sentEvents(emails, at);
    const moved = await deliveriesRepo.markSentMany(db, emails.map((e) => ({ id: e.id, token, at, delivered: false, providerMessageId: "abc" })), json);
    expect(moved).toEqual(new Set([emails[0]!.id]));
    const [row] = await db<{ payload: { events: Array<{ data: { emailId: string } }> } }[]>`select payload from outbox where id = ${groups[0]!.id}`;
    expect(row!.payload.events.map((e) => e.data.emailId)).toEqual([emails[0]!.id]);
    expect(writtenGroups(groups, moved).map((b) => JSON.parse(b.data).events.length)).toEqual([1]);
    expect(await sentCount()).toBe(before + 1);
    const rows = await db`select id, status, provider_message_id from emails where id = any(${emails.map((e) => e.id)}::uuid[]) order by status`;
    expect(rows.map((r) => [r.id, r.status, r.provider_message_id])).toEqual([
      [emails[1]!.id, "FAILED", null],
      [emails[0]!.id, "SENT", "abc"],
    ]);
    // a second record of the same sends (a retry after a lost answer) changes nothing and writes nothing
    const retry = sentEvents(emails, at);
    expect(await deliveriesRepo.markSentMany(db, emails.map((e) => ({ id: e.id, token, at, delivered: false, providerMessageId: "abc" })), retry.json)).toEqual(new Set());
    expect(await outboxIds(retry.groups.map((b) => b.id))).toEqual([]);
    expect(await sentCount()).toBe(before + 1);
    await db`delete from outbox where id = ${groups[0]!.id}`;
  });
});

// suppressionsRepo.blockingAll: the suppression checks of many sends (several projects, both kinds of
// mail) in one query per kind, each answered with its own project's entries only.
describe("suppressionsRepo.blockingAll", () => {
  const other = randomUUID();

  it("answers each check from its own project and by its kind of mail", async () => {
    const now = new Date();
    const old = new Date(Date.now() - 40 * 86_400_000);
    await suppressionsRepo.add(db, projectId, "Bounced@Example.com", "bounce", randomUUID(), now);
    await suppressionsRepo.add(db, projectId, "complained@example.com", "complaint", randomUUID(), now);
    await suppressionsRepo.add(db, projectId, "long-ago@example.com", "bounce", randomUUID(), old);
    await suppressionsRepo.add(db, other, "other@example.com", "bounce", randomUUID(), now);
    const addresses = ["bounced@example.com", "COMPLAINED@example.com", "long-ago@example.com", "other@example.com", "clean@example.com"];
    const [transactional, marketing, elsewhere] = await suppressionsRepo.blockingAll(db, [
      { projectId, emails: addresses, marketing: false },
      { projectId, emails: addresses, marketing: true },
      { projectId: other, emails: addresses, marketing: false },
    ]);
    // transactional mail: a permanent bounce of the last 30 days only
    expect([...transactional!.keys()]).toEqual(["bounced@example.com"]);
    expect(transactional!.get("bounced@example.com")).toEqual({ reason: "bounce", createdAt: now.toISOString() });
    // marketing mail: any bounce or complaint not lifted
    expect([...marketing!.keys()].sort()).toEqual(["bounced@example.com", "complained@example.com", "long-ago@example.com"]);
    expect([...elsewhere!.keys()]).toEqual(["other@example.com"]);
    expect(await suppressionsRepo.blockingAll(db, [])).toEqual([]);
  });

  it("shares one query among the checks of one turn, each still getting its own answer", async () => {
    const checks = new SuppressionChecks(db);
    const [a, b] = await Promise.all([
      checks.blocking(projectId, ["bounced@example.com"], false),
      checks.blocking(other, ["bounced@example.com", "other@example.com"], false),
    ]);
    expect([...a.keys()]).toEqual(["bounced@example.com"]);
    expect([...b.keys()]).toEqual(["other@example.com"]);
  });
});
