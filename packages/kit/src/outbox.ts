import { pgTable, uuid, text, jsonb, timestamp, index } from "drizzle-orm/pg-core";
import { setImmediate as nextTurn } from "node:timers/promises";
import type { JetStreamClient } from "@nats-io/jetstream";
import type postgres from "postgres";
import type { TransactionSql } from "postgres";
import { EVENT_HEADERS, eventFamily, type EventEnvelope, type WireNames } from "@mailroom/contracts";
import { copyEscape, copyText, type Sql } from "./db.js";
import type { Logger } from "./logger.js";
import type { Metrics } from "./metrics.js";
import { headersFrom, traceHeaders } from "./nats.js";
import { fitPayload, headerBytes } from "./outbox-fit.js";
import { Periodic } from "./periodic.js";

/**
 * The transactional outbox. A service writes its state change and the rows here in one transaction;
 * the relay publishes each row to JetStream with `Nats-Msg-Id` = row id and deletes it only after
 * the publish ack. A crash before the publish loses nothing (the row is still here); a crash after
 * the publish but before the delete publishes again with the same id, which JetStream drops as a
 * duplicate within the stream's duplicate window.
 *
 * Two paths publish: right after its commit a write hands its rows to `OutboxRelay.kick` and they go
 * out from memory (the common case, no read of this table), and are deleted in one statement with
 * the other rows published in the same 50 ms; a poll every half second publishes rows older than two
 * seconds, which only a failed publish or a crash leaves behind.
 *
 * A row whose message cannot fit the server's `max_payload` is published truncated (outbox-fit.ts),
 * never retried for ever; and a row that fails to publish for any other reason stays for the poll
 * without holding back the rows published beside it.
 *
 * Every service that emits includes this table in its drizzle schema (re-export it).
 */
export const outbox = pgTable(
  "outbox",
  {
    id: uuid("id").primaryKey(),
    subject: text("subject").notNull(),
    payload: jsonb("payload").notNull(),
    headers: jsonb("headers").$type<Record<string, string>>(),
    createdAt: timestamp("created_at", { withTimezone: true }).notNull().defaultNow(),
  },
  (t) => [index("outbox_created_at_idx").on(t.createdAt)],
);

export interface OutboxMessage {
  id: string;
  subject: string;
  payload: unknown;
  /** Headers of this message, beside the trace headers every row carries. */
  headers?: Record<string, string>;
}

/** A row as enqueued: what the relay publishes, serialised once. */
export interface StoredMessage {
  id: string;
  subject: string;
  data: string;
  headers: Record<string, string>;
}

/**
 * Adds messages to the outbox inside the caller's transaction. Returns the rows as stored: after
 * the commit, hand them to `OutboxRelay.kick` so they are published at once from memory
 * (`OutboxRelay.transaction` does both).
 */
export async function enqueue(tx: postgres.ISql, messages: OutboxMessage[]): Promise<StoredMessage[]> {
  if (messages.length === 0) return [];
  const { json, stored } = outboxRows(messages);
  await outboxInsert(tx, json);
  return stored;
}

/**
 * The outbox rows of a write that is a single statement, with no transaction around it: `json` is
 * one parameter for `outboxInsert`, which that statement runs in a CTE guarded by its own write, so
 * the rows exist if and only if the write does. After it, hand `stored` to `OutboxRelay.kick`.
 */
export function outboxRows(messages: OutboxMessage[], owners?: string[]): { json: string; stored: StoredMessage[] } {
  const trace = traceHeaders();
  const traceJson = JSON.stringify(trace);
  const stored: StoredMessage[] = [];
  const parts = messages.map((m, i) => {
    const data = JSON.stringify(m.payload);
    const headers = m.headers ? { ...trace, ...m.headers } : trace;
    stored.push({ id: m.id, subject: m.subject, data, headers });
    const owner = owners ? `,"owner":${JSON.stringify(owners[i])}` : "";
    // payload is spliced in as serialised: the JSON document carries it as an object, not a string
    return `{"id":${JSON.stringify(m.id)},"subject":${JSON.stringify(m.subject)},"payload":${data},"headers":${m.headers ? JSON.stringify(headers) : traceJson}${owner}}`;
  });
  return { json: `[${parts.join(",")}]`, stored };
}

/**
 * `insert into outbox … select …` of `outboxRows(…).json`, as a fragment for a CTE; add its guard
 * (`where exists (…)` for one record, `where m.owner in (…)` for rows given owners, whose
 * messages then exist if and only if their owner was written).
 */
export function outboxInsert(q: postgres.ISql, json: string) {
  return q`insert into outbox (id, subject, payload, headers)
    select m.id, m.subject, m.payload::jsonb, m.headers::jsonb
    from json_to_recordset(${json}::json) as m(id uuid, subject text, payload json, headers json, owner uuid)`;
}

/**
 * Many messages' outbox rows in one COPY, for bulk writes (a CSV import's batch of thousands):
 * PostgreSQL reads them as plain text, where `outboxInsert`'s JSON document is parsed twice. Nothing
 * is published from memory: the relay's poll sends the rows once they are `leftoverAgeMs` old, so a
 * bulk writer's memory does not grow with what the bus has not taken yet.
 */
export async function outboxCopy(tx: postgres.ISql, messages: OutboxMessage[]): Promise<void> {
  if (messages.length === 0) return;
  const trace = traceHeaders();
  const headers = copyEscape(JSON.stringify(trace));
  let text = "";
  for (const m of messages) {
    const own = m.headers ? copyEscape(JSON.stringify({ ...trace, ...m.headers })) : headers;
    text += `${m.id}\t${copyEscape(m.subject)}\t${copyEscape(JSON.stringify(m.payload))}\t${own}\n`;
  }
  await copyText(tx, "copy outbox (id, subject, payload, headers) from stdin", text);
}

/** An event envelope as an outbox message on the EVENTS stream (event-batch.ts: many in one). */
export function eventMessage(names: WireNames, event: EventEnvelope): OutboxMessage {
  return {
    id: event.id,
    subject: names.subjects.event(eventFamily(event.name), event.projectId),
    payload: event,
    headers: { [EVENT_HEADERS.names]: event.name },
  };
}

/** NATS's default max_payload, for a connection that has not said its own yet. */
const DEFAULT_MAX_PAYLOAD = 1024 * 1024;
/** Room for the `Nats-Msg-Id` header and the protocol's framing beside a row's own headers. */
const FRAMING_BYTES = 128;

type Row = { id: string; subject: string; data: string; headers: Record<string, string> | null };

export class OutboxRelay {
  /** Publishes the rows the direct path left behind. */
  private readonly poll: Periodic;
  /** Sets the backlog gauge. */
  private readonly gauge: Periodic;
  private stopped = false;
  /** Committed rows waiting for the direct path, and the flush serving them. */
  private committed: StoredMessage[] = [];
  private flushing: Promise<void> | undefined;
  /** Ids the direct path published, deleted together a moment later, and the round deleting them. */
  private published: string[] = [];
  private deleting: Promise<void> | undefined;

  constructor(
    private readonly sql: Sql,
    private readonly js: JetStreamClient,
    private readonly log: Logger,
    private readonly metrics: Metrics | undefined,
    private readonly opts: {
      batch?: number;
      intervalMs?: number;
      leftoverAgeMs?: number;
      deleteDelayMs?: number;
      /** The server's max_payload; read from the connection when not given. */
      maxPayload?: number;
    } = {},
  ) {
    this.poll = new Periodic({
      name: "outbox relay",
      everyMs: opts.intervalMs ?? 500,
      // a failure is NATS or the database away: look again less often until it is back
      retryMs: 2000,
      runAtStart: true,
      log,
      run: (signal) => this.publishLeftovers(signal),
    });
    this.gauge = new Periodic({ name: "outbox backlog gauge", everyMs: 15_000, log, run: () => this.backlog() });
  }

  start(): void {
    this.stopped = false;
    this.poll.start();
    this.gauge.start();
  }

  /**
   * Runs `work` in a transaction of this relay's database. What it `emit`s is enqueued in that
   * transaction and, once it has committed, published at once (`kick`).
   */
  async transaction<T>(work: (tx: TransactionSql, emit: (messages: OutboxMessage[]) => Promise<void>) => Promise<T>): Promise<T> {
    let stored: StoredMessage[] = [];
    const result = await this.sql.begin(async (tx) => {
      stored = [];
      return work(tx, async (messages) => void stored.push(...(await enqueue(tx, messages))));
    });
    this.kick(stored);
    return result as T;
  }

  /**
   * Called after a commit with its rows (what `enqueue` returned): they are published now from
   * memory and deleted by id, with no read of the table, and the rows of concurrent commits share
   * one round of publishes and one delete. A row the direct path fails to publish stays in the
   * table for the poll.
   */
  kick(rows: StoredMessage[]): void {
    if (this.stopped || rows.length === 0) return;
    for (const r of rows) this.committed.push(r);
    this.flushing ??= this.flushCommitted();
  }

  /**
   * `kick` for the rows of `outboxRows(messages, owners)` written by a statement guarded by owner
   * (`outboxInsert … where m.owner in (…)`): only the rows whose owner is in `written`.
   */
  kickOwned(rows: StoredMessage[], owners: string[], written: ReadonlySet<string>): void {
    this.kick(rows.filter((_, i) => written.has(owners[i]!)));
  }

  /** The bytes a row's data may take: the server's max_payload less its headers. */
  private payloadLimit(headers: Record<string, string> | null): number {
    // the JetStream client keeps its connection, whose INFO says the server's max_payload
    const info = (this.js as unknown as { nc?: { info?: { max_payload?: number } } }).nc?.info;
    const max = this.opts.maxPayload ?? info?.max_payload ?? DEFAULT_MAX_PAYLOAD;
    return max - headerBytes(headers ?? {}) - FRAMING_BYTES;
  }

  private publish(r: Row): Promise<unknown> {
    const fit = fitPayload(r.data, this.payloadLimit(r.headers));
    if (fit.truncated) this.log.warn({ id: r.id, subject: r.subject, bytes: Buffer.byteLength(r.data) }, "outbox message larger than a NATS message; published truncated");
    return this.js.publish(r.subject, fit.data, { msgID: r.id, headers: headersFrom(r.headers), timeout: 5000 });
  }

  /** Publishes rows side by side: the ids that went out, and the first failure of the others. */
  private async publishAll(rows: Row[]): Promise<{ ok: string[]; failed: number; error: unknown }> {
    const results = await Promise.allSettled(rows.map((r) => this.publish(r)));
    const ok: string[] = [];
    let failed = 0;
    let error: unknown;
    results.forEach((res, i) => {
      if (res.status === "fulfilled") ok.push(rows[i]!.id);
      else {
        failed++;
        error ??= res.reason;
      }
    });
    return { ok, failed, error };
  }

  private async flushCommitted(): Promise<void> {
    // Commits finishing in this turn of the event loop join the same round: under load the answers of
    // many transactions arrive in one socket read, and they then share one round of publishes (and
    // one delete) instead of a round each.
    await nextTurn();
    try {
      while (this.committed.length > 0) {
        const rows = this.committed.splice(0, this.opts.batch ?? 256);
        const { ok, failed, error } = await this.publishAll(rows);
        for (const id of ok) this.published.push(id);
        if (ok.length) this.deleting ??= this.deletePublished();
        // the failed rows are still in the table (or are gone and their messages out): the poll takes over
        if (failed) this.log.warn({ err: String(error), count: failed }, "outbox direct publish failed; the relay will retry");
      }
    } finally {
      this.flushing = undefined;
    }
  }

  /**
   * Deletes what the direct path published, once per `deleteDelayMs` for every write of that window
   * instead of a statement per write. A row whose delete is lost (a crash, a failed statement) is
   * published again by the poll with the same `Nats-Msg-Id`, which JetStream drops.
   */
  private async deletePublished(): Promise<void> {
    await new Promise((resolve) => setTimeout(resolve, this.opts.deleteDelayMs ?? 50));
    try {
      while (this.published.length > 0) {
        const ids = this.published.splice(0, 1000);
        await this.sql`delete from outbox where id = any(${ids}::uuid[])`.catch((err: unknown) =>
          this.log.warn({ err: String(err), count: ids.length }, "outbox delete failed; the relay will publish those rows again"),
        );
      }
    } finally {
      this.deleting = undefined;
    }
  }

  private async publishLeftovers(signal: AbortSignal): Promise<void> {
    let published: number;
    do {
      // rows younger than this are the direct path's; older ones were left by a failure or a crash
      published = await this.publishBatch(this.opts.leftoverAgeMs ?? 2000);
    } while (published > 0 && !signal.aborted);
  }

  /**
   * Publishes one batch of rows at least `minAgeMs` old, oldest first; returns how many went out.
   * Exposed for tests. A row the direct path is publishing at the same moment goes out twice with
   * the same `Nats-Msg-Id`, which JetStream drops as a duplicate. Rows that fail stay for the next
   * round while the others of the batch are deleted; only a batch of which nothing went out throws.
   */
  async publishBatch(minAgeMs = 0): Promise<number> {
    const batch = this.opts.batch ?? 256;
    return this.sql.begin(async (tx) => {
      const rows = await tx<{ id: string; subject: string; payload: unknown; headers: Record<string, string> | null }[]>`
        select id, subject, payload, headers from outbox
        where created_at <= clock_timestamp() - ${minAgeMs} * interval '1 millisecond'
        order by created_at, id limit ${batch} for update skip locked`;
      if (rows.length === 0) return 0;
      const { ok, failed, error } = await this.publishAll(rows.map((r) => ({ ...r, data: JSON.stringify(r.payload) })));
      if (ok.length === 0) throw error;
      await tx`delete from outbox where id = any(${ok}::uuid[])`;
      if (failed) this.log.warn({ err: String(error), count: failed }, "outbox rows failed to publish; the relay will retry");
      return ok.length;
    });
  }

  async backlog(): Promise<number> {
    const [row] = await this.sql<{ n: number }[]>`select count(*)::int as n from outbox`;
    const n = row?.n ?? 0;
    this.metrics?.outboxBacklog.set(n);
    return n;
  }

  /** Stops polling after the direct path's last round and one last attempt to flush what is committed. */
  async stop(): Promise<void> {
    this.stopped = true;
    await this.gauge.stop();
    await this.poll.stop();
    await this.flushing;
    await this.deleting;
    await this.publishBatch().catch(() => 0);
  }
}
