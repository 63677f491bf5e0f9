import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { fileURLToPath } from "node:url";
import { jetstream, jetstreamManager, type JsMsg } from "@nats-io/jetstream";
import { EVENT_HEADERS, wireNames, type EventEnvelope } from "@mailroom/contracts";
import { DATABASE_URL, NATS_URL, deleteStreams, dropDatabases, readDeadLetters, runPrefix, waitFor } from "@mailroom/testkit";
import {
  BatchConsumer,
  coreStreams,
  createLogger,
  createMetrics,
  DeadLetters,
  ensureStreams,
  eventBatches,
  eventConsumer,
  eventMessage,
  eventsOf,
  headersFrom,
  migrate,
  newId,
  openDatabase,
  OutboxRelay,
  outboxGroupInsert,
  writtenGroups,
  type EventSource,
} from "../src/index.js";
import { serviceDatabaseUrl } from "../src/config.js";
import { connect, type NatsConnection } from "@nats-io/transport-node";

const prefix = runPrefix("evbatch");
const names = wireNames(prefix);
const dbUrl = serviceDatabaseUrl(DATABASE_URL, prefix, "gateway");
const log = createLogger("test", "silent");
const sql = openDatabase(dbUrl, { max: 4 });
let nc: NatsConnection;
let relay: OutboxRelay;

function sent(projectId: string, owner: string, name = "email.sent", subject = "hello"): EventEnvelope {
  return { id: newId(), projectId, name, family: "email", contactId: newId(), email: "a@example.com", data: { emailId: owner, subject }, occurredAt: new Date().toISOString() };
}

/** Every message of the EVENTS stream on `subject` now, oldest first. */
async function messages(subject: string): Promise<JsMsg[]> {
  const consumer = await jetstream(nc).consumers.get(names.streams.events.name, { filter_subjects: subject });
  const out: JsMsg[] = [];
  let left = (await consumer.info(true)).num_pending;
  while (left > 0) {
    const m = await consumer.next({ expires: 2000 });
    if (!m) break;
    out.push(m);
    left = m.info.pending;
  }
  return out;
}

/** Writes the owners `write` names (of `owners`) and, in the same statement, their events' batches. */
async function writeOwned(owners: string[], write: string[], events: Array<{ owner: string; event: EventEnvelope }>) {
  const { json, groups } = eventBatches(names, events);
  const rows = await sql<{ id: string }[]>`
    with w as (insert into owned (id) select unnest(${write}::uuid[]) returning id),
    o as (${outboxGroupInsert(sql, json, sql`select id from w`)})
    select id from w`;
  expect(owners.length).toBeGreaterThanOrEqual(write.length);
  return { groups, written: new Set(rows.map((r) => r.id)) };
}

beforeAll(async () => {
  await migrate(dbUrl, "gateway", fileURLToPath(new URL("../../../services/gateway/drizzle", import.meta.url)));
  await sql`create table owned (id uuid primary key)`;
  nc = await connect({ servers: NATS_URL });
  await ensureStreams(await jetstreamManager(nc), coreStreams(names, 1));
  relay = new OutboxRelay(sql, jetstream(nc), log, createMetrics("evbatch"));
});
afterAll(async () => {
  await relay.stop();
  await sql.end();
  await nc?.close();
  await deleteStreams(NATS_URL, prefix);
  await dropDatabases(DATABASE_URL, prefix);
});

describe("event batches", () => {
  it("publish, in one message per project, exactly the events of the rows the statement wrote, in order", async () => {
    const [p1, p2] = [newId(), newId()];
    const owners = Array.from({ length: 6 }, newId);
    const events = owners.flatMap((o, i) => [{ owner: o, event: sent(i % 2 ? p2 : p1, o) }, { owner: o, event: sent(i % 2 ? p2 : p1, o, "email.delivery") }]);
    // the statement writes all but the last owner: its events must go nowhere
    const { groups, written } = await writeOwned(owners, owners.slice(0, 5), events);
    relay.kick(writtenGroups(groups, written));

    const got = await waitFor(async () => {
      const m = await messages(names.subjects.event("email", p1));
      return m.length === 1 ? m : null;
    }, { what: "project 1's batch" });
    expect(got[0]!.headers?.get(EVENT_HEADERS.batch)).toBe("1");
    expect(got[0]!.headers?.get(EVENT_HEADERS.names)?.split(",").sort()).toEqual(["email.delivery", "email.sent"]);
    const expected = events.filter((e) => e.event.projectId === p1 && written.has(e.owner)).map((e) => e.event.id);
    expect(eventsOf(got[0]!).map((e) => e.id)).toEqual(expected);
    const second = await messages(names.subjects.event("email", p2));
    expect(eventsOf(second[0]!).map((e) => e.id)).toEqual(events.filter((e) => e.event.projectId === p2 && written.has(e.owner)).map((e) => e.event.id));
    expect(eventsOf(second[0]!).some((e) => e.data.emailId === owners[5])).toBe(false);
  });

  it("leave a row the relay's poll publishes with the same events and id after a lost direct publish", async () => {
    const p = newId();
    const owners = Array.from({ length: 3 }, newId);
    const events = owners.map((o) => ({ owner: o, event: sent(p, o) }));
    const { groups, written } = await writeOwned(owners, owners, events);
    // no kick: as if the writer died after its commit
    expect(await relay.publishBatch(0)).toBeGreaterThanOrEqual(1);
    const [m] = await messages(names.subjects.event("email", p));
    expect(m!.headers?.get("Nats-Msg-Id")).toBe(groups[0]!.id);
    expect(eventsOf(m!).map((e) => e.id)).toEqual(events.map((e) => e.event.id));
    // the direct path publishing it late is dropped by JetStream as the same message
    relay.kick(writtenGroups(groups, written));
    await relay.publishBatch(0);
    expect(await messages(names.subjects.event("email", p))).toHaveLength(1);
  });

  it("store, for the relay's poll, a message rebuilt without the items of owners the statement did not write", async () => {
    const p = newId();
    const owners = Array.from({ length: 4 }, newId);
    const events = owners.flatMap((o) => [{ owner: o, event: sent(p, o) }, { owner: o, event: sent(p, o, "email.delivery") }]);
    // the second and the last owners are not written: their events sit between and after the others'
    await writeOwned(owners, [owners[0]!, owners[2]!], events);
    expect(await relay.publishBatch(0)).toBeGreaterThanOrEqual(1);
    const [m] = await messages(names.subjects.event("email", p));
    const kept = new Set([owners[0], owners[2]]);
    expect(eventsOf(m!).map((e) => e.id)).toEqual(events.filter((e) => kept.has(e.owner)).map((e) => e.event.id));
  });

  it("store no message when the statement wrote none of its owners", async () => {
    const p = newId();
    const owners = Array.from({ length: 2 }, newId);
    const { groups } = await writeOwned(owners, [], owners.map((o) => ({ owner: o, event: sent(p, o) })));
    const [row] = await sql<{ n: number }[]>`select count(*)::int as n from outbox where id = ${groups[0]!.id}`;
    expect(row!.n).toBe(0);
  });

  it("split a write's events into messages that each stay far below a NATS message's size", () => {
    const p = newId();
    const big = "x".repeat(2000);
    const events = Array.from({ length: 400 }, () => {
      const o = newId();
      return { owner: o, event: sent(p, o, "email.sent", big) };
    });
    const { groups } = eventBatches(names, events);
    expect(groups.length).toBeGreaterThan(1);
    const stored = writtenGroups(groups, new Set(events.map((e) => e.owner)));
    for (const b of stored) expect(Buffer.byteLength(b.data)).toBeLessThan(300 * 1024);
    expect(stored.flatMap((b) => JSON.parse(b.data).events.map((e: EventEnvelope) => e.id))).toEqual(events.map((e) => e.event.id));
  });
});

describe("eventConsumer", () => {
  it("hands over a batch's events with the batch's id, a lone event with its own, and skips what it does not read unparsed", async () => {
    const p = newId();
    const subject = names.subjects.event("email", p);
    const js = jetstream(nc);
    const batchId = newId();
    const inBatch = [sent(p, newId()), sent(p, newId())];
    await js.publish(subject, JSON.stringify({ events: inBatch }), {
      msgID: batchId,
      headers: headersFrom({ [EVENT_HEADERS.batch]: "1", [EVENT_HEADERS.names]: "email.sent" }),
    });
    const lone = sent(p, newId(), "email.open");
    const m = eventMessage(names, lone);
    await js.publish(m.subject, JSON.stringify(m.payload), { msgID: m.id, headers: headersFrom(m.headers) });
    // not JSON at all, but it says it carries only a name this consumer does not read: never parsed
    await js.publish(subject, "not json", { headers: headersFrom({ [EVENT_HEADERS.names]: "email.received" }) });
    // not JSON, and says nothing: poison, given up alone
    await js.publish(subject, "still not json");

    const seen: Array<{ id: string; from: EventSource }> = [];
    const metrics = createMetrics("evc");
    const consumer = new BatchConsumer(
      { js, jsm: await jetstreamManager(nc), log, metrics, deadLetters: new DeadLetters(js, names, metrics) },
      eventConsumer({
        names,
        family: "email",
        durable: "evc-read",
        reads: (name) => name !== "email.received",
        pick: (event, from) => (event.projectId === p ? { id: event.id, from } : null),
        handle: async (items) => void seen.push(...items),
      }),
    );
    await consumer.start();
    await waitFor(() => seen.length >= 3, { what: "three events" });
    await waitFor(async () => (await readDeadLetters(NATS_URL, prefix, "evc-read")).length === 1, { what: "the poison message's dead letter" });
    await consumer.stop();
    expect(seen).toEqual([
      { id: inBatch[0]!.id, from: { messageId: batchId, batch: true } },
      { id: inBatch[1]!.id, from: { messageId: batchId, batch: true } },
      { id: lone.id, from: { messageId: lone.id, batch: false } },
    ]);
    const letters = await readDeadLetters(NATS_URL, prefix, "evc-read");
    expect(letters.map((l) => l.data)).toEqual(["still not json"]);
  });

  it("acks batches unread when their producer accounted for them already", async () => {
    const p = newId();
    const js = jetstream(nc);
    await js.publish(names.subjects.event("email", p), JSON.stringify({ events: [sent(p, newId())] }), {
      msgID: newId(),
      headers: headersFrom({ [EVENT_HEADERS.batch]: "1", [EVENT_HEADERS.names]: "email.sent" }),
    });
    const lone = sent(p, newId());
    await js.publish(names.subjects.event("email", p), JSON.stringify(lone), { msgID: lone.id });
    const seen: string[] = [];
    const metrics = createMetrics("evs");
    const consumer = new BatchConsumer(
      { js, jsm: await jetstreamManager(nc), log, metrics, deadLetters: new DeadLetters(js, names, metrics) },
      eventConsumer({
        names,
        family: "email",
        durable: "evc-skip",
        batches: "skip",
        pick: (event) => (event.projectId === p ? event.id : null),
        handle: async (ids) => void seen.push(...ids),
      }),
    );
    await consumer.start();
    await waitFor(() => seen.length >= 1, { what: "the lone event" });
    await waitFor(async () => {
      const info = await (await jetstreamManager(nc)).consumers.info(names.streams.events.name, "evc-skip");
      return info.num_pending === 0 && info.num_ack_pending === 0;
    }, { what: "every message acked" });
    await consumer.stop();
    expect(seen).toEqual([lone.id]);
  });
});
