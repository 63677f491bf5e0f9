import { readFileSync } from "node:fs";
import {
  connect,
  createInbox,
  credsAuthenticator,
  headers as natsHeaders,
  type ConnectionOptions,
  type MsgHdrs,
  type NatsConnection,
} from "@nats-io/transport-node";
import {
  jetstream,
  jetstreamManager,
  DiscardPolicy,
  RetentionPolicy,
  StorageType,
  type JetStreamClient,
  type JetStreamManager,
  type StreamConfig,
} from "@nats-io/jetstream";
import { context, propagation, type Context } from "@opentelemetry/api";
import { natsInboxPrefix, type ServiceName, type WireNames } from "@mailroom/contracts";
import { ConfigError, type BaseEnv } from "./config.js";
import type { Logger } from "./logger.js";
import { warnEvery } from "./warn-every.js";

export type { NatsConnection, MsgHdrs, JetStreamClient, JetStreamManager };

/** What a connection needs from the configuration: where, as whom, and for which service. */
export type NatsSettings = Pick<BaseEnv, "NODE_ENV" | "NATS_URL" | "NATS_PREFIX" | "NATS_USER" | "NATS_PASSWORD" | "NATS_CREDS"> & {
  service: ServiceName;
};

/**
 * Connection options of a service (or of the CLI, which speaks as the gateway): its credentials,
 * and an inbox prefix of its own, which the server's permissions let only this service read
 * (natsPermissions in packages/contracts).
 */
export function natsConnectOptions(settings: NatsSettings, name: string): ConnectionOptions {
  const options: ConnectionOptions = {
    servers: settings.NATS_URL.split(",").map((s) => s.trim()),
    name,
    inboxPrefix: natsInboxPrefix(settings.NATS_PREFIX, settings.service),
    maxReconnectAttempts: -1,
    reconnectTimeWait: 250,
    // Fail fast at start-up so the process exits with a message rather than hanging.
    timeout: 5000,
    // nats.js otherwise builds an Error (a stack capture) for every request and publish, in case it
    // times out: ~15% of the gateway's CPU. Our callers turn every failure into their own error.
    noAsyncTraces: true,
  };
  if (settings.NATS_USER) Object.assign(options, { user: settings.NATS_USER, pass: settings.NATS_PASSWORD });
  if (settings.NATS_CREDS) {
    let creds: Uint8Array;
    try {
      creds = readFileSync(settings.NATS_CREDS);
    } catch (err) {
      throw new ConfigError(`NATS_CREDS: cannot read ${settings.NATS_CREDS} (${(err as NodeJS.ErrnoException).code ?? err})`);
    }
    options.authenticator = credsAuthenticator(creds);
  }
  return options;
}

export async function connectNats(settings: NatsSettings, name: string, log: Logger): Promise<NatsConnection> {
  const options = natsConnectOptions(settings, name);
  const hasCredentials = Boolean(settings.NATS_USER || settings.NATS_CREDS || /\/\/[^/]*@/.test(settings.NATS_URL));
  if (!hasCredentials && settings.NODE_ENV === "production") {
    log.warn("NATS_URL has no credentials and NATS_USER/NATS_CREDS are unset: any process that reaches NATS can speak for this service");
  }
  // A handshake past its bound is asked again; a server that refuses the connection (not running,
  // a wrong NATS_URL) fails the start at once, with its message.
  const nc = await whileBusAway(() => connect(options), { retryable: (err) => (err as Error | undefined)?.name === "TimeoutError" });
  // Mostly permission violations (a deployment that does not match natsPermissions); the error names
  // the subject. At most every 10 s, since every request that needs the subject repeats it.
  const serverError = warnEvery(log, 10_000, "nats server error");
  (async () => {
    for await (const s of nc.status()) {
      if (s.type === "disconnect" || s.type === "reconnect") log.warn({ nats: s.type }, "nats connection status");
      else if (s.type === "error") serverError(s.error);
    }
  })().catch(() => undefined);
  return nc;
}

/**
 * A fresh inbox under the connection's own prefix (natsConnectOptions): inboxes made without it
 * would fall outside what the service's NATS user may subscribe to.
 */
export function newInbox(nc: NatsConnection): string {
  return createInbox((nc as NatsConnection & { options?: ConnectionOptions }).options?.inboxPrefix);
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

/**
 * Errors of a message bus that is away for a moment, not of the request: a timeout or no responders
 * while a JetStream leader is elected (seen for about a second on a three-server cluster when one
 * server stops), a connection dropped or refused, JetStream unavailable (503), a consumer's server
 * shutting down or its heartbeats missed. Work that meets one stops and is taken up again later,
 * as after a database outage (`isConnectionError`); anything else is the work's own fault. By
 * name, since two copies of nats.js in one tree would defeat `instanceof`.
 */
export function isBusUnavailable(err: unknown): boolean {
  const cause = (err as { cause?: unknown })?.cause;
  if (cause && cause !== err && isBusUnavailable(cause)) return true;
  const e = err as { name?: string; message?: string; code?: unknown; status?: unknown } | null;
  switch (e?.name) {
    case "TimeoutError":
    case "NoResponders":
    case "ConnectionError":
    case "JetStreamNotEnabled":
      return true;
    case "RequestError":
      // a request cut by a reconnect (its no-responders form is the cause, seen above)
      return /connection (disconnected|closed)/i.test(e.message ?? "");
    case "JetStreamError":
      return /heartbeats missed/i.test(e.message ?? "");
    case "JetStreamStatusError":
      // 409 is also a consumer's own misuse; only its shutdown and leader-change forms pass
      return e.code === 503 || e.code === 408 || /server shutdown|leadership change/i.test(e.message ?? "");
    case "JetStreamApiError":
      // the API's HTTP-like status: 503 while the stream or the meta leader is being elected
      return e.status === 503;
    default:
      return false;
  }
}

/**
 * One of start-up's idempotent calls to the bus (the connection's handshake, the account's
 * JetStream, making sure of a stream or a durable consumer), asked again while the bus is
 * away for a moment (`retryable`, by default isBusUnavailable): a stream leader being elected on a
 * cluster, or a replica starved of CPU past a request's 5 s bound (a benchmark's platform at the
 * lowest priority beside the fault suite), would otherwise fail the whole start. Anything else
 * fails at once, and so does a try past `boundMs`.
 */
export async function whileBusAway<T>(
  call: () => Promise<T>,
  { boundMs = 60_000, pauseMs = 250, retryable = isBusUnavailable }: { boundMs?: number; pauseMs?: number; retryable?: (err: unknown) => boolean } = {},
): Promise<T> {
  const deadline = Date.now() + boundMs;
  for (;;) {
    try {
      return await call();
    } catch (err) {
      if (!retryable(err) || Date.now() >= deadline) throw err;
      await new Promise((resolve) => setTimeout(resolve, pauseMs));
    }
  }
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
    {
      // Kept for inspection and replay, never consumed: bounded so a flood of poison cannot fill the disk.
      name: names.streams.deadLetters.name,
      subjects: names.streams.deadLetters.subjects,
      retention: RetentionPolicy.Limits,
      storage: StorageType.File,
      max_age: 14 * DAY_NS,
      max_bytes: 256 * 1024 * 1024,
      discard: DiscardPolicy.Old,
      duplicate_window: 2 * 60 * 1e9,
      num_replicas: replicas,
    },
  ];
}

/**
 * Creates the streams if missing, and gives an existing one the replicas asked for (NATS_REPLICAS
 * raised when a deployment moves onto a cluster: nats-server copies the stream to the new peers).
 * Safe when N processes start at once (a lost race is success; the update is idempotent).
 */
export async function ensureStreams(
  jsm: JetStreamManager,
  streams: Array<Partial<StreamConfig> & { name: string }>,
): Promise<void> {
  for (const cfg of streams) await whileBusAway(() => ensureStream(jsm, cfg));
}

async function ensureStream(jsm: JetStreamManager, cfg: Partial<StreamConfig> & { name: string }): Promise<void> {
  const existing = await orNone(jsm.streams.info(cfg.name));
  if (existing) {
    const replicas = cfg.num_replicas ?? existing.config.num_replicas;
    if (existing.config.num_replicas !== replicas) await jsm.streams.update(cfg.name, { ...existing.config, num_replicas: replicas });
    return;
  }
  await jsm.streams.add(cfg).catch(unlessMadeMeanwhile);
}

/**
 * A stream's or durable's info, or null when asking failed for the object's own reason (none there,
 * or one the add that follows will name): a bus away for a moment is not "none", and is thrown.
 */
export const orNone = <T>(info: Promise<T>): Promise<T | null> => info.catch((err) => (isBusUnavailable(err) ? Promise.reject(err) : null));

/** For an add that another process starting at the same time may have won: theirs is as good. */
export function unlessMadeMeanwhile(err: unknown): void {
  if (!/already in use|exists/i.test(String((err as Error | undefined)?.message))) throw err;
}

export function jetstreamOf(nc: NatsConnection): { js: JetStreamClient; jsm: Promise<JetStreamManager> } {
  return { js: jetstream(nc), jsm: whileBusAway(() => jetstreamManager(nc)) };
}
