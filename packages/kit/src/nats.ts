import { connect, headers as natsHeaders, type MsgHdrs, type NatsConnection } from "@nats-io/transport-node";
import {
  jetstream,
  jetstreamManager,
  RetentionPolicy,
  StorageType,
  type JetStreamClient,
  type JetStreamManager,
  type StreamConfig,
} from "@nats-io/jetstream";
import { context, propagation, type Context } from "@opentelemetry/api";
import type { WireNames } from "@mailroom/contracts";
import type { Logger } from "./logger.js";

export type { NatsConnection, MsgHdrs, JetStreamClient, JetStreamManager };

export async function connectNats(url: string, name: string, log: Logger): Promise<NatsConnection> {
  const nc = await connect({
    servers: url.split(",").map((s) => s.trim()),
    name,
    maxReconnectAttempts: -1,
    reconnectTimeWait: 250,
    // Fail fast at start-up so the process exits with a message rather than hanging.
    timeout: 5000,
    // nats.js otherwise builds an Error (a stack capture) for every request and publish, in case it
    // times out: ~15% of the gateway's CPU. Our callers turn every failure into their own error.
    noAsyncTraces: true,
  });
  (async () => {
    for await (const s of nc.status()) {
      if (s.type === "disconnect" || s.type === "reconnect") log.warn({ nats: s.type }, "nats connection status");
    }
  })().catch(() => undefined);
  return nc;
}

export function extractTrace(h: MsgHdrs | undefined): Context {
  if (!h) return context.active();
  return propagation.extract(context.active(), h, {
    get: (carrier, key) => carrier.get(key) || undefined,
    keys: (carrier) => carrier.keys(),
  });
}

/** The trace context in a plain-object carrier (traceHeaders()'s form), as in a batch item. */
export function extractTraceObject(carrier: Record<string, string> | undefined): Context {
  return carrier ? propagation.extract(context.active(), carrier) : context.active();
}

/** Plain-object form of trace headers, for storing in an outbox row or carrying in a batch item. */
export function traceHeaders(): Record<string, string> {
  const out: Record<string, string> = {};
  propagation.inject(context.active(), out);
  return out;
}

export function headersFrom(record: Record<string, string> | null | undefined): MsgHdrs {
  const h = natsHeaders();
  for (const [k, v] of Object.entries(record ?? {})) h.set(k, v);
  return h;
}

const DAY_NS = 24 * 60 * 60 * 1e9;

/** The core streams every service may publish to or consume from. nats-server 2.9 features only. */
export function coreStreams(names: WireNames, replicas: number): Array<Partial<StreamConfig> & { name: string }> {
  return [
    {
      name: names.streams.events.name,
      subjects: names.streams.events.subjects,
      retention: RetentionPolicy.Limits,
      storage: StorageType.File,
      max_age: 7 * DAY_NS,
      duplicate_window: 2 * 60 * 1e9,
      num_replicas: replicas,
    },
    {
      name: names.streams.sendJobs.name,
      subjects: names.streams.sendJobs.subjects,
      retention: RetentionPolicy.Workqueue,
      storage: StorageType.File,
      max_age: 7 * DAY_NS,
      duplicate_window: 10 * 60 * 1e9,
      num_replicas: replicas,
    },
    {
      name: names.streams.transactionalJobs.name,
      subjects: names.streams.transactionalJobs.subjects,
      retention: RetentionPolicy.Workqueue,
      storage: StorageType.File,
      max_age: 7 * DAY_NS,
      duplicate_window: 10 * 60 * 1e9,
      num_replicas: replicas,
    },
    {
      name: names.streams.contactChanges.name,
      subjects: names.streams.contactChanges.subjects,
      retention: RetentionPolicy.Limits,
      storage: StorageType.File,
      max_age: DAY_NS,
      duplicate_window: 2 * 60 * 1e9,
      num_replicas: replicas,
    },
  ];
}

/** Creates the streams if missing. Safe when N processes start at once (a lost race is success). */
export async function ensureStreams(
  jsm: JetStreamManager,
  streams: Array<Partial<StreamConfig> & { name: string }>,
): Promise<void> {
  for (const cfg of streams) {
    try {
      await jsm.streams.info(cfg.name);
    } catch {
      try {
        await jsm.streams.add(cfg);
      } catch (err) {
        if (!/already in use|exists/i.test(String((err as Error).message))) throw err;
      }
    }
  }
}

export function jetstreamOf(nc: NatsConnection): { js: JetStreamClient; jsm: Promise<JetStreamManager> } {
  return { js: jetstream(nc), jsm: jetstreamManager(nc) };
}
