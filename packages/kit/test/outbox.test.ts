import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { connect, type NatsConnection } from "@nats-io/transport-node";
import { jetstream, jetstreamManager } from "@nats-io/jetstream";
import { spawn } from "node:child_process";
import { fileURLToPath } from "node:url";
import { EventEnvelope, wireNames } from "@mailroom/contracts";
import { DATABASE_URL, NATS_URL, deleteStreams, dropDatabases, runPrefix, waitFor } from "@mailroom/testkit";
import { createLogger, createMetrics, coreStreams, ensureStreams, enqueue, eventMessage, migrate, newId, openDatabase, OutboxRelay } from "../src/index.js";
import { serviceDatabaseUrl } from "../src/config.js";

const prefix = runPrefix("outbox");
const names = wireNames(prefix);
const dbUrl = serviceDatabaseUrl(DATABASE_URL, prefix, "gateway");
const log = createLogger("test", "silent");
let nc: NatsConnection;
const sql = openDatabase(dbUrl, { max: 4 });

function event(): EventEnvelope {
  return { id: newId(), projectId: newId(), name: "signup", family: "custom", contactId: null, email: null, data: {}, occurredAt: new Date().toISOString() };
}

async function streamCount(): Promise<number> {
  const jsm = await jetstreamManager(nc);
  return (await jsm.streams.info(names.streams.events.name)).state.messages;
}

/** The events of the stream with these ids, by id. */
async function eventsInStream(ids: string[]): Promise<Map<string, EventEnvelope>> {
  const consumer = await jetstream(nc).consumers.get(names.streams.events.name);
  const wanted = new Set(ids);
  const found = new Map<string, EventEnvelope>();
  let left = await streamCount();
  while (left-- > 0 && found.size < wanted.size) {
    const m = await consumer.next({ expires: 2000 });
    if (!m) break;
    const e = m.json<EventEnvelope>();
    if (wanted.has(e.id)) found.set(e.id, e);
  }
  return found;
}

async function distinctIdsInStream(): Promise<{ total: number; distinct: number }> {
  const js = jetstream(nc);
  const consumer = await js.consumers.get(names.streams.events.name);
  const ids: string[] = [];
  const total = await streamCount();
  while (ids.length < total) {
    const m = await consumer.next({ expires: 2000 });
    if (!m) break;
    ids.push(m.json<EventEnvelope>().id);
  }
  return { total: ids.length, distinct: new Set(ids).size };
}

beforeAll(async () => {
  // The gateway's migrations include the kit's outbox table; any service's would do.
  await migrate(dbUrl, "gateway", fileURLToPath(new URL("../../../services/gateway/drizzle", import.meta.url)));
  nc = await connect({ servers: NATS_URL });
  await ensureStreams(await jetstreamManager(nc), coreStreams(names, 1));
});
afterAll(async () => {
  await sql.end();
  await nc?.close();
  await deleteStreams(NATS_URL, prefix);
  await dropDatabases(DATABASE_URL, prefix);
});

describe("outbox", () => {
  it("keeps rows committed while NATS is unreachable and publishes each once afterwards", async () => {
    const before = await streamCount();
    const events = Array.from({ length: 50 }, event);
    await sql.begin((tx) => enqueue(tx, events.map((e) => eventMessage(names, e))));

    // A relay whose NATS connection is gone: every publish fails, nothing is deleted.
    const dead = await connect({ servers: NATS_URL });
    await dead.close();
    const broken = new OutboxRelay(sql, jetstream(dead), log, createMetrics("t1"));
    await expect(broken.publishBatch()).rejects.toThrow();
    expect(await broken.backlog()).toBe(50);

    const relay = new OutboxRelay(sql, jetstream(nc), log, createMetrics("t2"));
    while ((await relay.publishBatch()) > 0);
    expect(await relay.backlog()).toBe(0);
    expect((await streamCount()) - before).toBe(50);
  });

  it("does not duplicate when the process died after publishing but before deleting", async () => {
    const before = await streamCount();
    const events = Array.from({ length: 20 }, event);
    await sql.begin((tx) => enqueue(tx, events.map((e) => eventMessage(names, e))));
    // Simulate the crash window: the messages reached JetStream, the rows were never deleted.
    const js = jetstream(nc);
    for (const e of events) await js.publish(names.subjects.event("custom", e.projectId), JSON.stringify(e), { msgID: e.id });
    const relay = new OutboxRelay(sql, js, log, createMetrics("t3"));
    while ((await relay.publishBatch()) > 0);
    expect(await relay.backlog()).toBe(0);
    expect((await streamCount()) - before).toBe(20);
  });

  it("publishes committed rows from memory at once and deletes them, without a poll", async () => {
    const before = await streamCount();
    const events = Array.from({ length: 30 }, event);
    const relay = new OutboxRelay(sql, jetstream(nc), log, createMetrics("t5"));
    // not started: no poll runs, so only the direct path can publish
    const first = await sql.begin((tx) => enqueue(tx, events.slice(0, 10).map((e) => eventMessage(names, e))));
    const second = await sql.begin((tx) => enqueue(tx, events.slice(10).map((e) => eventMessage(names, e))));
    expect(first.map((r) => r.id)).toEqual(events.slice(0, 10).map((e) => e.id));
    relay.kick(first);
    relay.kick(second);
    await waitFor(async () => (await relay.backlog()) === 0, { timeoutMs: 5000, what: "direct publish" });
    expect((await streamCount()) - before).toBe(30);
    const { total, distinct } = await distinctIdsInStream();
    expect(total).toBe(distinct);
  });

  it("deletes what many writes published within a moment in one statement", async () => {
    let deletes = 0;
    // counts the relay's deletes; everything else passes through to the real client
    const counted = new Proxy(sql, {
      apply(target, self, args: unknown[]) {
        if ((args[0] as { raw?: string[] })?.raw?.join("").includes("delete from outbox")) deletes++;
        return Reflect.apply(target, self, args);
      },
    });
    const relay = new OutboxRelay(counted, jetstream(nc), log, createMetrics("t8"), { deleteDelayMs: 1000 });
    const before = await streamCount();
    const events = Array.from({ length: 10 }, event);
    // ten transactions committed first, so the window holds all ten publishes however slowly a
    // loaded machine runs the transactions themselves
    const writes = [];
    for (const e of events) writes.push(await sql.begin((tx) => enqueue(tx, [eventMessage(names, e)])));
    for (const rows of writes) {
      relay.kick(rows);
      await new Promise((r) => setImmediate(r)); // each commit's kick in a turn of its own
    }
    await waitFor(async () => (await relay.backlog()) === 0, { timeoutMs: 10_000, what: "deleted" });
    expect((await streamCount()) - before).toBe(10);
    expect(deletes).toBe(1);
    await relay.stop();
  });

  it("leaves rows whose direct publish failed to the poll, which takes only rows older than its age", async () => {
    const before = await streamCount();
    const events = Array.from({ length: 5 }, event);
    const stored = await sql.begin((tx) => enqueue(tx, events.map((e) => eventMessage(names, e))));
    const dead = await connect({ servers: NATS_URL });
    await dead.close();
    const broken = new OutboxRelay(sql, jetstream(dead), log, createMetrics("t6"));
    broken.kick(stored);
    await broken.stop(); // waits for the direct round, which fails
    expect(await broken.backlog()).toBe(5);

    const relay = new OutboxRelay(sql, jetstream(nc), log, createMetrics("t7"));
    expect(await relay.publishBatch(60_000)).toBe(0); // too young for a poll with a minute's age
    expect(await relay.publishBatch(0)).toBe(5);
    expect(await relay.backlog()).toBe(0);
    expect((await streamCount()) - before).toBe(5);
  });

  it("publishes an event too large for a NATS message truncated, on both paths, and the rows behind it too", async () => {
    const maxPayload = nc.info!.max_payload;
    const big = (): EventEnvelope => ({
      ...event(),
      name: "email.received",
      family: "email",
      contactId: newId(),
      email: "reader@example.com",
      data: { messageId: "<m1@example.com>", from: "sender@example.com", hasContent: true, body: "€".repeat(Math.ceil(maxPayload / 3) + 1024), recipients: ["a@example.com"] },
    });
    const check = (sent: EventEnvelope, got: EventEnvelope | undefined) => {
      expect(got, `event ${sent.id} published`).toBeDefined();
      expect(EventEnvelope.safeParse(got).success).toBe(true);
      const { data, ...envelope } = got!;
      const { data: _sentData, ...sentEnvelope } = sent;
      expect(envelope).toEqual(sentEnvelope);
      expect(data).toEqual({ messageId: "<m1@example.com>", from: "sender@example.com", hasContent: true, truncated: true, originalBytes: expect.any(Number) });
      expect(data.originalBytes as number).toBeGreaterThan(maxPayload);
    };

    // the poll: the big row is the oldest of its batch and holds up nothing
    const polled = big();
    const behindPoll = Array.from({ length: 3 }, event);
    await sql.begin((tx) => enqueue(tx, [polled, ...behindPoll].map((e) => eventMessage(names, e))));
    const relay = new OutboxRelay(sql, jetstream(nc), log, createMetrics("t9"));
    expect(await relay.publishBatch()).toBe(4);
    expect(await relay.backlog()).toBe(0);

    // the direct path, right after the commit
    const direct = big();
    const behindDirect = Array.from({ length: 3 }, event);
    await relay.transaction(async (_tx, emit) => emit([direct, ...behindDirect].map((e) => eventMessage(names, e))));
    await waitFor(async () => (await relay.backlog()) === 0, { timeoutMs: 5000, what: "the direct path's rows published and deleted" });

    const all = [polled, ...behindPoll, direct, ...behindDirect];
    const found = await eventsInStream(all.map((e) => e.id));
    check(polled, found.get(polled.id));
    check(direct, found.get(direct.id));
    for (const e of [...behindPoll, ...behindDirect]) expect(found.get(e.id)).toEqual(e);
    await relay.stop();
  });

  it("loses and duplicates nothing when the writing process is killed with SIGKILL mid-stream", async () => {
    const before = await streamCount();
    const child = spawn(process.execPath, [fileURLToPath(new URL("./outbox-writer.mjs", import.meta.url))], {
      env: { ...process.env, OUTBOX_DB: dbUrl, OUTBOX_PREFIX: prefix, NATS_URL },
      stdio: ["ignore", "pipe", "inherit"],
    });
    let written = 0;
    child.stdout.on("data", (d: Buffer) => {
      const lines = d.toString().trim().split("\n");
      written = Number(lines[lines.length - 1]);
    });
    await waitFor(() => written >= 300, { timeoutMs: 20_000, what: "writer progress" });
    child.kill("SIGKILL");
    await new Promise((r) => child.once("exit", r));
    const [{ n: committed }] = await sql<{ n: number }[]>`select count(*)::int as n from outbox`;
    const relay = new OutboxRelay(sql, jetstream(nc), log, createMetrics("t4"));
    while ((await relay.publishBatch()) > 0);
    const published = (await streamCount()) - before;
    // Every event the child committed is in the stream exactly once (committed-but-unpublished
    // rows were flushed by the new relay; published-but-undeleted ones were deduplicated).
    expect(committed).toBeGreaterThanOrEqual(0);
    expect(published).toBeGreaterThanOrEqual(written);
    const { total, distinct } = await distinctIdsInStream();
    expect(total).toBe(distinct);
  });
});
