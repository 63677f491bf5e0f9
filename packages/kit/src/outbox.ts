import { pgTable, uuid, text, jsonb, timestamp, index } from "drizzle-orm/pg-core";
import type { JetStreamClient } from "@nats-io/jetstream";
import { eventFamily, type EventEnvelope, type WireNames } from "@mailroom/contracts";
import type { Sql } from "./db.js";
import type { Logger } from "./logger.js";
import type { Metrics } from "./metrics.js";
import { headersFrom, traceHeaders } from "./nats.js";

/**
 * The transactional outbox. A service writes its state change and the rows here in one transaction;
 * the relay publishes each row to JetStream with `Nats-Msg-Id` = row id and deletes it only after
 * the publish ack. A crash before the publish loses nothing (the row is still here); a crash after
 * the publish but before the delete publishes again with the same id, which JetStream drops as a
 * duplicate within the stream's duplicate window.
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
}

/** Anything that can run a tagged query: the pool or a transaction. */
type Queryable = Pick<Sql, "unsafe">;

/** Adds messages to the outbox inside the caller's transaction. */
export async function enqueue(tx: Queryable, messages: OutboxMessage[]): Promise<void> {
  if (messages.length === 0) return;
  const trace = traceHeaders();
  const values: unknown[] = [];
  const rows = messages.map((m, i) => {
    values.push(m.id, m.subject, JSON.stringify(m.payload), JSON.stringify(trace));
    const b = i * 4;
    return `($${b + 1}, $${b + 2}, $${b + 3}::jsonb, $${b + 4}::jsonb)`;
  });
  await tx.unsafe(`insert into outbox (id, subject, payload, headers) values ${rows.join(", ")}`, values as never[]);
}

/** An event envelope as an outbox message on the EVENTS stream. */
export function eventMessage(names: WireNames, event: EventEnvelope): OutboxMessage {
  return { id: event.id, subject: names.subjects.event(eventFamily(event.name), event.projectId), payload: event };
}

export class OutboxRelay {
  private timer: NodeJS.Timeout | undefined;
  private running: Promise<void> | undefined;
  private again = false;
  private stopped = false;

  constructor(
    private readonly sql: Sql,
    private readonly js: JetStreamClient,
    private readonly log: Logger,
    private readonly metrics: Metrics | undefined,
    private readonly opts: { batch?: number; intervalMs?: number } = {},
  ) {}

  private gauge: NodeJS.Timeout | undefined;

  start(): void {
    this.stopped = false;
    this.schedule(0);
    this.gauge = setInterval(() => void this.backlog().catch(() => undefined), 15_000);
    this.gauge.unref();
  }

  /** Called after a commit that added rows, so they go out now instead of at the next poll. */
  kick(): void {
    if (this.stopped) return;
    if (this.running) this.again = true;
    else this.schedule(0);
  }

  private schedule(ms: number): void {
    clearTimeout(this.timer);
    this.timer = setTimeout(() => void this.tick(), ms);
  }

  private async tick(): Promise<void> {
    if (this.stopped || this.running) return;
    let delay = this.opts.intervalMs ?? 500;
    this.running = (async () => {
      try {
        let published: number;
        do {
          this.again = false;
          published = await this.publishBatch();
        } while ((published > 0 || this.again) && !this.stopped);
      } catch (err) {
        this.log.warn({ err: String(err) }, "outbox relay failed; will retry");
        delay = 2000;
      }
    })();
    await this.running;
    this.running = undefined;
    if (!this.stopped) this.schedule(delay);
  }

  /** Publishes one batch; returns how many rows went out. Exposed for tests. */
  async publishBatch(): Promise<number> {
    const batch = this.opts.batch ?? 256;
    return this.sql.begin(async (tx) => {
      const rows = await tx<{ id: string; subject: string; payload: unknown; headers: Record<string, string> | null }[]>`
        select id, subject, payload, headers from outbox order by created_at, id limit ${batch} for update skip locked`;
      if (rows.length === 0) return 0;
      await Promise.all(
        rows.map((r) =>
          this.js.publish(r.subject, JSON.stringify(r.payload), { msgID: r.id, headers: headersFrom(r.headers), timeout: 5000 }),
        ),
      );
      await tx`delete from outbox where id = any(${rows.map((r) => r.id)}::uuid[])`;
      return rows.length;
    });
  }

  async backlog(): Promise<number> {
    const [row] = await this.sql<{ n: number }[]>`select count(*)::int as n from outbox`;
    const n = row?.n ?? 0;
    this.metrics?.outboxBacklog.set(n);
    return n;
  }

  /** Stops polling after one last attempt to flush what is committed. */
  async stop(): Promise<void> {
    this.stopped = true;
    clearTimeout(this.timer);
    clearInterval(this.gauge);
    await this.running;
    await this.publishBatch().catch(() => 0);
  }
}
