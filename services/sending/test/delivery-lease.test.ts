// The delivery lease at the repository: a worker that stalled past its lease, whose emails another
// replica took over, learns it lost them at its next renewal and commits nothing (sent, failed or
// released) beside its successor. test/delivery-takeover.test.ts stalls a whole sending process.
import { randomUUID } from "node:crypto";
import { afterAll, describe, expect, it, vi } from "vitest";
import { wireNames } from "@mailroom/contracts";
import { eventBatches, LeaseSet, type LeaseSetStore, openDatabase } from "@mailroom/kit";
import { sharedPlatform, waitFor } from "@mailroom/testkit/shared";
import { deliveriesRepo } from "../src/db/deliveries-repo.js";
import { emailsRepo, type NewEmail } from "../src/db/emails-repo.js";

const url = new URL(sharedPlatform().env.DATABASE_URL!);
url.pathname = `/${sharedPlatform().prefix}_sending`;
const db = openDatabase(url.toString(), { max: 2 });
afterAll(() => db.end());

const LEASE_MS = 600;
const projectId = randomUUID();
const names = wireNames(sharedPlatform().prefix);

const email = (): NewEmail => {
  const id = randomUUID();
  return {
    id, projectId, contactId: null, to: `${id.slice(0, 8)}@example.com`, toName: null, from: "a@mailroom.test", fromName: null, replyTo: null,
    subject: "s", html: "<p>s</p>", headers: {}, marketing: false, messageId: `<${id}@bounces.mailroom.test>`, attachmentIds: [],
    templateId: null, campaignId: null, workflowId: null, executionId: null, sourceType: "CAMPAIGN", idempotencyKey: null, links: [],
  };
};

/** The repository as a LeaseSet's store, whose renewals can be held back: what a stalled process sends. */
function stallable(): { store: LeaseSetStore; stall: () => () => void } {
  let gate: Promise<void> | undefined;
  const store: LeaseSetStore = {
    renew: async (q, ids, token, ms) => {
      await gate;
      return deliveriesRepo.renew(q, ids, token, ms);
    },
    release: (q, id, token) => deliveriesRepo.release(q, id, token),
  };
  const stall = () => {
    let resume!: () => void;
    gate = new Promise<void>((r) => (resume = r));
    return () => {
      gate = undefined;
      resume();
    };
  };
  return { store, stall };
}

/** Sends as the worker records them: the email.sent events go in the same statement. */
function sent(emails: NewEmail[], token: string) {
  const at = new Date();
  const { json, groups } = eventBatches(
    names,
    emails.map((e) => ({
      owner: e.id,
      event: { id: randomUUID(), projectId, name: "email.sent", family: "email" as const, contactId: null, email: e.to, data: { emailId: e.id }, occurredAt: at.toISOString() },
    })),
  );
  return { rows: emails.map((e) => ({ id: e.id, token, at, delivered: false, providerMessageId: null })), json, groups };
}

describe("the delivery lease", () => {
  it("a worker stalled past its lease learns it lost its emails once another took them over, and commits nothing for them", async () => {
    const [x, y] = [email(), email()];
    await emailsRepo.insertQueuedMany(db, [x, y], "[]");
    const ids = [x.id, y.id];
    const log = { warn: vi.fn() };

    // A claims both and renews them while it runs
    const a = stallable();
    const setA = new LeaseSet(db, a.store, { name: "delivery", ms: LEASE_MS, log });
    const claimedAt = performance.now();
    expect((await deliveriesRepo.claimMany(db, ids, setA.token, LEASE_MS)).map((c) => c.kind)).toEqual(["claimed", "claimed"]);
    const [ax, ay] = ids.map((id) => setA.hold(id, claimedAt));
    const [first] = await db<{ until: Date }[]>`select locked_until as until from emails where id = ${x.id}`;
    await waitFor(async () => (await db`select 1 from emails where id = ${x.id} and locked_until > ${first!.until}`).length > 0, { what: "A's renewal" });

    // A stalls: its renewals reach the database no more, and its leases run out
    const resume = a.stall();
    await waitFor(async () => (await db`select 1 from emails where id = any(${ids}::uuid[]) and locked_until < now()`).length === 2, {
      intervalMs: 20,
      what: "A's leases to expire",
    });

    // B takes both over and sends x; y is still under way at B
    const setB = new LeaseSet(db, deliveriesRepo, { name: "delivery", ms: 60_000, log });
    expect((await deliveriesRepo.claimMany(db, ids, setB.token, 60_000)).map((c) => c.kind)).toEqual(["claimed", "claimed"]);
    const bSent = sent([x], setB.token);
    expect(await deliveriesRepo.markSentMany(db, bSent.rows, bSent.json)).toEqual(new Set([x.id]));
    const [before] = await db<{ until: Date }[]>`select locked_until as until from emails where id = ${y.id}`;

    // A wakes: before its relay call it asks its lease, which renews first (its last renewal is too
    // old to tell) and answers lost, so it sends neither
    const lostX = new Promise((r) => ax!.signal.addEventListener("abort", r));
    const asked = Promise.all([ax!.held(), ay!.held()]);
    resume();
    expect(await asked).toEqual([false, false]);
    await lostX;
    expect(ay!.lost).toBe(true);
    expect(setA.size).toBe(0);
    expect(log.warn).toHaveBeenCalledWith({ lost: 2 }, "delivery leases lost; another holder has taken them over");

    // and what A would have written had it gone on commits nothing beside B
    const aSent = sent([x, y], setA.token);
    expect(await deliveriesRepo.markSentMany(db, aSent.rows, aSent.json)).toEqual(new Set());
    expect(await deliveriesRepo.markFailed(db, y.id, "relay said no", setA.token)).toBeNull();
    await deliveriesRepo.release(db, y.id, setA.token, "relay busy");
    const rows = await db`select id, status, lease_token, locked_until, last_error from emails where id = any(${ids}::uuid[]) order by status`;
    expect(rows.map((r) => [r.id, r.status, r.lease_token])).toEqual([
      [y.id, "QUEUED", setB.token],
      [x.id, "SENT", setB.token],
    ]);
    expect(rows[0]!.locked_until).toEqual(before!.until);
    expect(rows[0]!.last_error).toBeNull();
    // x was counted and announced once: B's
    const [stats] = await db`select sum(sent)::int as sent from email_stats_hourly where project_id = ${projectId}`;
    expect(stats!.sent).toBe(1);
    expect(await db`select id from outbox where id = any(${aSent.groups.map((g) => g.id)}::uuid[])`).toHaveLength(0);

    // B's lease on y is still B's: its renewal answers held, and its release gives y back
    expect(await setB.hold(y.id).renew()).toBe("held");
    await deliveriesRepo.release(db, y.id, setB.token, "relay busy");
    const [released] = await db`select lease_token, locked_until, last_error from emails where id = ${y.id}`;
    expect(released).toEqual({ lease_token: null, locked_until: null, last_error: "relay busy" });
    await Promise.all([setA.stop(), setB.stop()]);
    await db`delete from outbox where id = any(${bSent.groups.map((g) => g.id)}::uuid[])`;
  });

  it("a renewal extends only what its token holds, and answers those", async () => {
    const [x, y] = [email(), email()];
    await emailsRepo.insertQueuedMany(db, [x, y], "[]");
    const [mine, theirs] = [randomUUID(), randomUUID()];
    await deliveriesRepo.claimMany(db, [x.id], mine, 60_000);
    await deliveriesRepo.claimMany(db, [y.id], theirs, 60_000);
    expect(await deliveriesRepo.renew(db, [x.id, y.id], mine, 60_000)).toEqual([x.id]);
  });
});
