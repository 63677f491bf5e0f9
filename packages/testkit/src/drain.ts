import postgres from "postgres";
import { connect, type NatsConnection } from "@nats-io/transport-node";
import { jetstreamManager, type JetStreamManager } from "@nats-io/jetstream";

/** What a drain needs of a platform's environment (`Platform.env`, or the shared platform's `env`). */
const TARGET_KEYS = ["NATS_URL", "NATS_PREFIX", "DATABASE_URL", "DB_PREFIX"] as const;
type DrainTarget = Record<(typeof TARGET_KEYS)[number], string>;

interface Database {
  name: string;
  sql: postgres.Sql;
}

/** One step of a pipeline: a durable consumer, or several that read the same messages side by side. */
export type Stage = string | readonly string[];

/**
 * Waits, on the platform's own state, until the work a test set off has gone through a pipeline of
 * durable consumers, so that "nothing happened" can be asserted without guessing how long to sleep.
 *
 * `through(a, b)` waits, in turn, until every outbox row already committed in any service's database
 * has been published (the relay deletes a row only after JetStream acknowledged it); until consumer
 * `a` has acknowledged every message its stream held at that point (its handler committed, outbox
 * rows included, before the ack); until what `a` emitted has been published; until `b` has
 * acknowledged all of that; and until what `b` emitted has been published. `through()` with no stage
 * waits for the outboxes alone: enough after a write whose effects are only its own messages.
 *
 * Progress is measured against sequence numbers and commit times taken when each step starts, so
 * other test files working on the same platform at the same time slow a wait down but never make
 * it pass early. Timers (a scheduler's tick) are not messages: wait for those by what they leave.
 */
export class Drain {
  private readonly databases: Database[] = [];
  private discovered: Promise<Database[]> | undefined;
  private readonly streamOf = new Map<string, string>();

  private constructor(
    private readonly target: DrainTarget,
    private readonly nc: NatsConnection,
    private readonly jsm: JetStreamManager,
  ) {}

  /** A drain of the platform whose environment is `env` (`platform.env`, `sharedPlatform().env`). */
  static async open(env: Record<string, string | undefined>): Promise<Drain> {
    const missing = TARGET_KEYS.filter((k) => !env[k]);
    if (missing.length) throw new Error(`Drain.open: the environment has no ${missing.join(", ")}`);
    const target = env as DrainTarget;
    // a cluster's NATS_URL lists every server, as the services are given it
    const nc = await connect({ servers: target.NATS_URL.split(",") });
    return new Drain(target, nc, await jetstreamManager(nc));
  }

  async through(...stages: Stage[]): Promise<void> {
    return this.run(stages, 20_000);
  }

  /** `through` with a bound of its own (the default is 20 s). */
  async within(timeoutMs: number, ...stages: Stage[]): Promise<void> {
    return this.run(stages, timeoutMs);
  }

  /**
   * Every durable consumer on the platform's streams, for a stage that has to cover all of them
   * (work whose path through the services a test does not spell out).
   */
  async everyConsumer(): Promise<string[]> {
    const out: string[] = [];
    for (const stream of await this.streams()) {
      for await (const c of this.jsm.consumers.list(stream)) {
        if (!c.config.durable_name) continue;
        this.streamOf.set(c.config.durable_name, stream);
        out.push(c.config.durable_name);
      }
    }
    return out;
  }

  async close(): Promise<void> {
    await Promise.all(this.databases.map(({ sql }) => sql.end({ timeout: 1 })));
    await this.nc.close();
  }

  private async run(stages: Stage[], timeoutMs: number): Promise<void> {
    const deadline = Date.now() + timeoutMs;
    for (const stage of stages) {
      await this.published(deadline);
      const durables = typeof stage === "string" ? [stage] : stage;
      // Read after the outboxes were published: these sequences cover everything they held.
      const marks = await Promise.all(durables.map(async (d) => [d, await this.lastSeq(d)] as const));
      await Promise.all(marks.map(([d, seq]) => this.consumed(d, seq, deadline)));
    }
    await this.published(deadline);
  }

  /** Every outbox row committed before now, in every service database of the platform, is published. */
  private async published(deadline: number): Promise<void> {
    const dbs = await this.outboxDatabases();
    if (dbs.length === 0) return;
    // One PostgreSQL server holds them all, so one clock orders every row against this instant.
    const [row] = await dbs[0]!.sql<{ now: Date }[]>`select clock_timestamp() as now`;
    const now = row!.now;
    await until(deadline, "the outbox rows committed before the wait to be published", async () => {
      const left = await Promise.all(
        dbs.map(async ({ name, sql }) => {
          const [row] = await sql<{ n: number }[]>`select count(*)::int as n from outbox where created_at <= ${now}`;
          return row!.n > 0 ? `${row!.n} in ${name}` : null;
        }),
      );
      const pending = left.filter(Boolean);
      return pending.length ? `${pending.join(", ")} left` : null;
    });
  }

  /** Every message up to `seq` on the durable's stream that its filter takes is acknowledged. */
  private async consumed(durable: string, seq: number, deadline: number): Promise<void> {
    const stream = await this.stream(durable);
    await until(deadline, `consumer ${durable} to acknowledge ${stream} up to sequence ${seq}`, async () => {
      const info = await this.jsm.consumers.info(stream, durable);
      // The ack floor does not move over messages the filter skips, hence the second test.
      const done = info.ack_floor.stream_seq >= seq || (info.num_pending === 0 && info.num_ack_pending === 0);
      return done ? null : `ack floor ${info.ack_floor.stream_seq}, ${info.num_pending} undelivered, ${info.num_ack_pending} unacknowledged`;
    });
  }

  private async lastSeq(durable: string): Promise<number> {
    return (await this.jsm.streams.info(await this.stream(durable))).state.last_seq;
  }

  /** The stream of this platform that holds the durable (durable names are unique within it). */
  private async stream(durable: string): Promise<string> {
    const known = this.streamOf.get(durable);
    if (known) return known;
    for (const stream of await this.streams()) {
      const found = await this.jsm.consumers.info(stream, durable).then(
        () => true,
        () => false,
      );
      if (found) {
        this.streamOf.set(durable, stream);
        return stream;
      }
    }
    throw new Error(`no stream with the prefix ${this.target.NATS_PREFIX} has a consumer ${durable}`);
  }

  /** The platform's streams (`<PREFIX>_…`; its KV and object buckets are not work). */
  private async streams(): Promise<string[]> {
    const up = `${this.target.NATS_PREFIX.toUpperCase().replace(/-/g, "_")}_`;
    const out: string[] = [];
    for await (const s of this.jsm.streams.list()) if (s.config.name.startsWith(up)) out.push(s.config.name);
    return out;
  }

  /** The platform's databases (`<DB_PREFIX>_<service>`) that have an outbox table. */
  private outboxDatabases(): Promise<Database[]> {
    this.discovered ??= (async () => {
      const admin = postgres(this.url("postgres"), { max: 1, onnotice: () => undefined });
      try {
        const rows = await admin<{ datname: string }[]>`select datname from pg_database where datname like ${`${this.target.DB_PREFIX}\\_%`}`;
        const out: Database[] = [];
        for (const { datname: name } of rows) {
          // Idle connections close by themselves: a test file holds none between its waits.
          const db = { name, sql: postgres(this.url(name), { max: 1, idle_timeout: 5, onnotice: () => undefined }) };
          this.databases.push(db);
          const [row] = await db.sql<{ has: boolean }[]>`select to_regclass('outbox') is not null as has`;
          if (row!.has) out.push(db);
        }
        return out;
      } finally {
        await admin.end({ timeout: 1 });
      }
    })();
    return this.discovered;
  }

  private url(database: string): string {
    const url = new URL(this.target.DATABASE_URL);
    url.pathname = `/${database}`;
    return url.toString();
  }
}

/** Polls `check` (null when done, else what is still outstanding) until done or `deadline`. */
async function until(deadline: number, what: string, check: () => Promise<string | null>): Promise<void> {
  let last = "";
  for (;;) {
    try {
      const left = await check();
      if (left === null) return;
      last = left;
    } catch (err) {
      last = String(err);
    }
    if (Date.now() > deadline) throw new Error(`timed out waiting for ${what}: ${last}`);
    await new Promise((r) => setTimeout(r, 25));
  }
}
