import { randomBytes } from "node:crypto";
import postgres from "postgres";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { ErrorBody } from "@mailroom/contracts";
import { serviceDatabaseUrl } from "@mailroom/kit";
import { startMailbox } from "@mailroom/devmailbox";
import { DATABASE_URL, Platform, apiClient, sinkMessages, sleep, waitFor, type ApiResponse } from "@mailroom/testkit";

/**
 * Idempotency-Key when the answer is lost (decisions.md §3): a request whose gateway gave up
 * waiting, or died, may still be finishing in its service. A retry with the same key must end with
 * the one email (event, execution) of the first attempt, and a dead gateway's claim must not hold
 * the key. A service is slowed by holding a lock on the table its write goes to, so the write waits
 * at its statement.
 */
const TIMEOUT_MS = 2000;
const HOLD_MS = 1000;
let mailbox: Awaited<ReturnType<typeof startMailbox>>;
let platform: Platform;
let api: ReturnType<typeof apiClient>;
let sending: postgres.Sql;
let contacts: postgres.Sql;
let workflows: postgres.Sql;
let campaigns: postgres.Sql;
let domain: string;

beforeAll(async () => {
  mailbox = await startMailbox({ smtpPort: 0, httpPort: 0 });
  platform = new Platform({
    services: ["gateway", "contacts", "sending", "workflows", "campaigns"],
    env: { SMTP_URL: mailbox.smtpUrl, ROUTE_TIMEOUT_MAX_MS: String(TIMEOUT_MS), IDEMPOTENCY_RETRY_AFTER_MS: String(HOLD_MS) },
  });
  await platform.start();
  const project = await platform.createProject("retry");
  domain = `retry-${randomBytes(4).toString("hex")}.example`;
  await platform.verifyDomain(project.id, domain);
  api = apiClient(platform.url, project.secretKey);
  const db = (service: string) => postgres(serviceDatabaseUrl(DATABASE_URL, platform.prefix, service), { max: 2, onnotice: () => undefined });
  [sending, contacts, workflows, campaigns] = [db("sending"), db("contacts"), db("workflows"), db("campaigns")];
});
afterAll(async () => {
  await Promise.all([sending?.end(), contacts?.end(), workflows?.end(), campaigns?.end()]);
  await platform?.destroy();
  await mailbox?.stop();
});

/** Holds a lock that makes every insert into `table` of a service's database wait. */
async function lockTable(db: postgres.Sql, table: string) {
  const conn = await db.reserve();
  await conn`begin`;
  await conn`lock table ${conn(table)} in share mode`;
  return async () => {
    await conn`rollback`;
    conn.release();
  };
}
const lockEmails = () => lockTable(sending, "emails");

/** Statements of the sending service waiting for that lock. */
async function waitingInserts(): Promise<number> {
  const [row] = await sending<{ n: number }[]>`
    select count(*)::int as n from pg_locks where not granted and relation = 'emails'::regclass`;
  return row!.n;
}

/** The service's statements that contain `statement` and are still under way: `waiting` those held by a lock. */
async function writesTo(db: postgres.Sql, statement: string, waiting = false): Promise<number> {
  const [row] = await db<{ n: number }[]>`
    select count(*)::int as n from pg_stat_activity
    where datname = current_database() and pid <> pg_backend_pid() and state <> 'idle'
      and query ilike ${`%${statement}%`} and (not ${waiting} or wait_event_type = 'Lock')`;
  return row!.n;
}

/**
 * A request sent with `key` while `table` is locked: the first attempt times out (503), a retry
 * once the key's hold ends times out too, both waiting in the service; then the lock goes and the
 * client retries until it has an answer, which a further retry replays.
 */
async function lostAnswerThenRetried(db: postgres.Sql, table: string, statement: string, send: () => Promise<ApiResponse>): Promise<ApiResponse> {
  const unlock = await lockTable(db, table);
  try {
    expect((await send()).status).toBe(503);
    const early = await send();
    expect(early.status).toBe(409);
    await sleep(Number(early.headers.get("retry-after")) * 1000);
    expect((await send()).status).toBe(503);
    // both attempts wait in the service: on the lock, or on the row the other wrote first. The
    // gateway's 503 does not mean the retry's statement has reached the database yet: wait for it.
    await waitFor(async () => (await writesTo(db, statement, true)) === 2, { timeoutMs: 10_000, what: "both attempts to wait at their statement" });
  } finally {
    await unlock();
  }
  const done = await retryUntilDone(send);
  const again = await send();
  expect(again.headers.get("idempotent-replayed")).toBe("true");
  expect(again.body).toEqual(done.body);
  return done;
}

function sendTo(to: string, key: string) {
  return api.post("/v1/send", { to, from: `hello@${domain}`, subject: "Once", body: "<p>only once</p>" }, { "idempotency-key": key });
}

/** Retries as a client would, honouring Retry-After, until an answer that is not "in progress". */
async function retryUntilDone(send: () => Promise<ApiResponse>): Promise<ApiResponse> {
  const deadline = Date.now() + 20_000;
  for (;;) {
    const res = await send();
    if (res.status !== 409) return res;
    expect(ErrorBody.parse(res.body).reason).toBe("idempotency_in_progress");
    expect(Date.now(), "the key was still claimed after 20 s of retries").toBeLessThan(deadline);
    await sleep(Number(res.headers.get("retry-after")) * 1000);
  }
}

/** The emails to `to`: their records (the API) and what reached the SMTP sink. */
async function expectOneEmail(to: string, emailId: string) {
  const messages = await waitFor(async () => {
    const found = await sinkMessages(mailbox.webUrl, [to]);
    return found.length > 0 ? found : null;
  }, { timeoutMs: 15_000, what: `the email to ${to}` });
  // a later email to the same address arrives after any second copy of the first would have
  await sendTo(to, `later-${randomBytes(4).toString("hex")}`);
  const all = await waitFor(async () => {
    const found = await sinkMessages(mailbox.webUrl, [to]);
    return found.length >= messages.length + 1 ? found : null;
  }, { timeoutMs: 15_000, what: `the later email to ${to}` });
  expect(all).toHaveLength(2);
  const record = await api.get(`/emails/${emailId}`);
  expect(record.status).toBe(200);
  const list = await api.get(`/emails?contactId=${record.body.contactId}`);
  expect(list.body.data).toHaveLength(2);
}

describe("a /v1/send retried with the same Idempotency-Key", () => {
  it("sends once when the first attempt timed out at the gateway but finished in the service", async () => {
    const to = `timeout-${randomBytes(4).toString("hex")}@example.com`;
    const key = `k-${randomBytes(6).toString("hex")}`;
    const unlock = await lockEmails();
    try {
      const first = await sendTo(to, key);
      expect(first.status).toBe(503);
      // the outcome is unknown: the key stays claimed a moment, and the retry is told so
      const early = await sendTo(to, key);
      expect(early.status).toBe(409);
      expect(ErrorBody.parse(early.body)).toMatchObject({ error: "CONFLICT", reason: "idempotency_in_progress" });
      expect(Number(early.headers.get("retry-after"))).toBeGreaterThanOrEqual(1);
      await sleep(Number(early.headers.get("retry-after")) * 1000);
      // a retry while the first attempt still runs: both wait on the lock, and time out
      const twin = await sendTo(to, key);
      expect(twin.status).toBe(503);
      await waitFor(async () => (await waitingInserts()) === 2, { timeoutMs: 10_000, what: "both attempts to wait at the insert" });
    } finally {
      await unlock();
    }
    const done = await retryUntilDone(() => sendTo(to, key));
    expect(done.status).toBe(200);
    expect(done.body.data.emails).toHaveLength(1);
    const again = await sendTo(to, key);
    expect(again.headers.get("idempotent-replayed")).toBe("true");
    expect(again.body).toEqual(done.body);
    await expectOneEmail(to, done.body.data.emails[0].email);
  });

  it("takes over the claim of a gateway killed mid-request, and still sends once", async () => {
    const to = `killed-${randomBytes(4).toString("hex")}@example.com`;
    const key = `k-${randomBytes(6).toString("hex")}`;
    const unlock = await lockEmails();
    try {
      const pending = sendTo(to, key).catch((err: Error) => err);
      await waitFor(async () => (await waitingInserts()) === 1, { timeoutMs: 10_000, what: "the send to reach the sending service" });
      const gateway = platform.procs.get("gateway")![0]!;
      const exited = new Promise((resolve) => gateway.child.once("exit", resolve));
      gateway.child.kill("SIGKILL");
      await exited;
      expect(await pending).toBeInstanceOf(Error);
      platform.procs.delete("gateway");
      await platform.startService("gateway");
    } finally {
      await unlock();
    }
    // the dead gateway's claim is live until its lease ends (409 with Retry-After), then taken over
    const done = await retryUntilDone(() => sendTo(to, key));
    expect(done.status).toBe(200);
    expect(done.body.data.emails[0].contact.email).toBe(to);
    await expectOneEmail(to, done.body.data.emails[0].email);
  });
});

describe("a /v1/track retried with the same Idempotency-Key", () => {
  it("records the event once when the first attempt timed out at the gateway but finished in contacts", async () => {
    const email = `track-${randomBytes(4).toString("hex")}@example.com`;
    const key = `k-${randomBytes(6).toString("hex")}`;
    const track = () => api.post("/v1/track", { email, event: "paid", data: { plan: "pro" } }, { "idempotency-key": key });
    const done = await lostAnswerThenRetried(contacts, "contact_events", "insert into contact_events ", track);
    expect(done.status).toBe(200);
    await waitFor(async () => (await writesTo(contacts, "insert into contact_events ")) === 0, { what: "every attempt to end" });
    const events = await api.get(`/contacts/${done.body.data.contact}/events`);
    expect(events.body.data.map((e: { id: string; name: string }) => [e.id, e.name])).toEqual([[done.body.data.event, "paid"]]);
  });
});

describe("a manual workflow start retried with the same Idempotency-Key", () => {
  it("starts one execution when the first attempt timed out at the gateway but finished in workflows", async () => {
    const contact = await api.post("/contacts", { email: `start-${randomBytes(4).toString("hex")}@example.com` });
    // re-entry allowed, so nothing but the idempotency would stop a second execution
    const workflow = await api.post("/workflows", { name: "Manual", eventName: "never", allowReentry: true });
    expect((await api.post(`/workflows/${workflow.body.id}/steps`, { type: "EXIT", config: {} })).status).toBe(201);
    expect((await api.patch(`/workflows/${workflow.body.id}`, { enabled: true, triggerType: "MANUAL" })).status).toBe(200);
    const key = `k-${randomBytes(6).toString("hex")}`;
    const start = () => api.post(`/workflows/${workflow.body.id}/executions`, { contactId: contact.body.id }, { "idempotency-key": key });
    const done = await lostAnswerThenRetried(workflows, "executions", "insert into executions ", start);
    expect(done.status).toBe(201);
    await waitFor(async () => (await writesTo(workflows, "insert into executions ")) === 0, { what: "every attempt to end" });
    const executions = await api.get(`/workflows/${workflow.body.id}/executions`);
    expect(executions.body.data.map((e: { id: string }) => e.id)).toEqual([done.body.id]);
  });
});

describe("a POST /contacts retried with the same Idempotency-Key", () => {
  it("answers 201 with the contact the first attempt created, when that attempt timed out at the gateway", async () => {
    const email = `create-${randomBytes(4).toString("hex")}@example.com`;
    const key = `k-${randomBytes(6).toString("hex")}`;
    const create = () => api.post("/contacts", { email, data: { plan: "pro" } }, { "idempotency-key": key });
    const done = await lostAnswerThenRetried(contacts, "contacts", "insert into contacts ", create);
    expect(done.status).toBe(201);
    expect(done.body).toMatchObject({ email, data: { plan: "pro" }, _meta: { isNew: true, isUpdate: false } });
    await waitFor(async () => (await writesTo(contacts, "insert into contacts ")) === 0, { what: "every attempt to end" });
    // the same address with another key is an update of that one contact
    const later = await api.post("/contacts", { email }, { "idempotency-key": `${key}-2` });
    expect(later.status).toBe(200);
    expect(later.body).toMatchObject({ id: done.body.id, _meta: { isNew: false } });
  });
});

describe("a campaign send retried with the same Idempotency-Key", () => {
  it("answers with the campaign the first attempt started, when that attempt timed out at the gateway", async () => {
    await api.post("/contacts", { email: `reader-${randomBytes(4).toString("hex")}@example.com` });
    const campaign = await api.post("/campaigns", { name: "Once", subject: "Once", body: "<p>once</p>", from: `hello@${domain}`, audienceType: "ALL" });
    expect(campaign.status).toBe(200);
    const id = campaign.body.data.id;
    const key = `k-${randomBytes(6).toString("hex")}`;
    const send = () => api.post(`/campaigns/${id}/send`, {}, { "idempotency-key": key });
    const done = await lostAnswerThenRetried(campaigns, "campaigns", "send_request_id = ", send);
    expect(done.status).toBe(200);
    expect(done.body.data).toMatchObject({ id });
    expect(["SENDING", "SENT"]).toContain(done.body.data.status);
    // a new request (another key) to send it again is refused: it was sent once
    const again = await api.post(`/campaigns/${id}/send`, {}, { "idempotency-key": `${key}-2` });
    expect(again.status).toBe(409);
  });
});
