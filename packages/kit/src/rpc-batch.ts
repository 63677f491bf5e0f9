import type { Msg, NatsConnection } from "@nats-io/transport-node";
import { RpcBatchReply, RpcBatchRequest, type RpcReply, type WireNames } from "@mailroom/contracts";
import type { Blobs } from "./blobs.js";
import { newInbox } from "./nats.js";
import { oncePerTurn } from "./next-turn.js";

const encoder = new TextEncoder();
const decoder = new TextDecoder();

/** A request bigger than this goes alone: batching pays off for many small messages, not big ones. */
const MAX_BATCHED_BYTES = 64 * 1024;
/** After a batch subject had no responders (a replica not yet upgraded), that operation goes unbatched this long. */
const UNBATCHED_MS = 60_000;

/** Sends one request the ordinary way: its reply body, or a failure the caller already mapped. */
export type SendOne = (operation: string, data: Uint8Array, timeoutMs: number, trace: Record<string, string> | undefined) => Promise<unknown>;

interface Item {
  json: string;
  /** UTF-8 length of `json`: the bus bounds messages in bytes, and a character can take three. */
  bytes: number;
  trace: Record<string, string> | undefined;
  resolve: (body: unknown) => void;
}

interface Flight {
  operation: string;
  timeoutMs: number;
  items: Array<Item | null>;
  left: number;
  timer: NodeJS.Timeout;
}

const timedOut: RpcReply = { ok: false, error: { error: "SERVICE_UNAVAILABLE", message: "The service did not answer in time" } };

/**
 * Coalesces the requests a process makes to one operation within one event-loop turn into one NATS
 * message on the operation's batch subject. Under load a gateway turn reads dozens of HTTP requests
 * at once; each used to cost a request message, a reply message, a timer and an inbox entry in this
 * process, in NATS and in the service. A batch costs those once, and its items are answered as they
 * finish (replies finishing in the same turn share a message too), so a slow item holds no other
 * back. A lone request goes the ordinary way: there is nothing to share, and nothing changes on the
 * wire for it. A batch subject with no responders (a service replica from before batching, during a
 * rolling upgrade) is retried one request at a time, and that operation stays unbatched for a minute.
 */
export class RpcCoalescer {
  private readonly pending = new Map<string, { operation: string; timeoutMs: number; items: Item[] }>();
  private readonly flights = new Map<string, Flight>();
  private readonly unbatchedUntil = new Map<string, number>();
  private inbox: string | undefined;
  private seq = 0;
  /** Runs after every I/O callback of this turn: all their requests are in by then. */
  private readonly flushNextTurn = oncePerTurn(() => this.flush());

  constructor(
    private readonly nc: NatsConnection,
    private readonly names: WireNames,
    private readonly blobs: Blobs,
    private readonly sendOne: SendOne,
  ) {}

  /** Whether a request of this size to this operation may join a batch. */
  accepts(operation: string, bytes: number): boolean {
    if (bytes > MAX_BATCHED_BYTES) return false;
    const until = this.unbatchedUntil.get(operation);
    return until === undefined || until < Date.now();
  }

  /** The reply body of one request (an RpcReply, unparsed), whichever way it travelled. */
  request(operation: string, json: string, bytes: number, trace: Record<string, string> | undefined, timeoutMs: number): Promise<unknown> {
    return new Promise((resolve) => {
      const key = `${operation}\n${timeoutMs}`;
      let group = this.pending.get(key);
      if (!group) this.pending.set(key, (group = { operation, timeoutMs, items: [] }));
      group.items.push({ json, bytes, trace, resolve });
      this.flushNextTurn();
    });
  }

  private flush(): void {
    const groups = [...this.pending.values()];
    this.pending.clear();
    for (const { operation, timeoutMs, items } of groups) {
      if (items.length === 1) {
        this.alone(operation, timeoutMs, items[0]!);
        continue;
      }
      let chunk: Item[] = [];
      let bytes = 0;
      for (const item of items) {
        if (chunk.length && bytes + item.bytes > this.blobs.threshold) {
          this.publish(operation, timeoutMs, chunk);
          chunk = [];
          bytes = 0;
        }
        chunk.push(item);
        bytes += item.bytes + 64;
      }
      if (chunk.length === 1) this.alone(operation, timeoutMs, chunk[0]!);
      else this.publish(operation, timeoutMs, chunk);
    }
  }

  private alone(operation: string, timeoutMs: number, item: Item): void {
    item.resolve(this.sendOne(operation, encoder.encode(item.json), timeoutMs, item.trace));
  }

  private publish(operation: string, timeoutMs: number, items: Item[]): void {
    const id = String(++this.seq);
    const traced = items.some((i) => i.trace);
    const body = `{"items":[${items.map((i) => i.json).join(",")}]${traced ? `,"traces":${JSON.stringify(items.map((i) => i.trace ?? {}))}` : ""}}`;
    const flight: Flight = {
      operation,
      timeoutMs,
      items,
      left: items.length,
      timer: setTimeout(() => this.end(id, timedOut), timeoutMs),
    };
    this.flights.set(id, flight);
    try {
      this.nc.publish(this.names.rpcBatch(operation), encoder.encode(body), { reply: `${this.replyInbox()}.${id}` });
    } catch {
      // The connection is closing or closed: nothing will answer.
      this.end(id, { ok: false, error: { error: "SERVICE_UNAVAILABLE", message: "The message bus is unavailable, try again" } });
    }
  }

  private replyInbox(): string {
    if (this.inbox) return this.inbox;
    this.inbox = newInbox(this.nc);
    this.nc.subscribe(`${this.inbox}.*`, { callback: (err, msg) => void (err || this.answered(msg)) });
    return this.inbox;
  }

  private answered(msg: Msg): void {
    const id = msg.subject.slice(this.inbox!.length + 1);
    const flight = this.flights.get(id);
    if (!flight) return; // late: the batch timed out already
    if (msg.headers?.code === 503) {
      this.retryAlone(id, flight);
      return;
    }
    let replies: RpcBatchReply;
    try {
      replies = RpcBatchReply.parse(JSON.parse(decoder.decode(msg.data)));
    } catch {
      return; // not ours to understand; its items time out as if it never came
    }
    for (const [index, reply, blob] of replies) {
      const item = flight.items[index];
      if (!item) continue;
      flight.items[index] = null;
      flight.left--;
      item.resolve(blob ? this.blobs.take(blob).then((b) => JSON.parse(decoder.decode(b))) : reply);
    }
    if (flight.left === 0) {
      clearTimeout(flight.timer);
      this.flights.delete(id);
    }
  }

  /** No responder on the batch subject: every item again, one by one, on the operation's own subject. */
  private retryAlone(id: string, flight: Flight): void {
    clearTimeout(flight.timer);
    this.flights.delete(id);
    this.unbatchedUntil.set(flight.operation, Date.now() + UNBATCHED_MS);
    for (const item of flight.items) if (item) this.alone(flight.operation, flight.timeoutMs, item);
  }

  /** Answers every item of a batch still waiting. */
  private end(id: string, reply: RpcReply): void {
    const flight = this.flights.get(id);
    if (!flight) return;
    clearTimeout(flight.timer);
    this.flights.delete(id);
    for (const item of flight.items) item?.resolve(reply);
  }
}

/**
 * The service side of a batch: each item's reply goes out as soon as it is ready, and the replies
 * ready in the same turn share one message (chunked below the bus's message bound; a reply too big
 * for a message travels as a blob, as everywhere else).
 */
export class BatchReplies {
  private ready: string[] = [];
  private bytes = 0;
  private readonly sendNextTurn = oncePerTurn(() => this.send());
  private writes: Promise<void>[] = [];

  constructor(
    private readonly nc: NatsConnection,
    private readonly replyTo: string,
    private readonly blobs: Blobs,
    private readonly onError: (err: unknown) => void,
  ) {}

  add(index: number, reply: RpcReply): void {
    const json = JSON.stringify(reply);
    if (Buffer.byteLength(json) > this.blobs.threshold) {
      this.writes.push(
        this.blobs.put(encoder.encode(json)).then(
          (name) => this.push(JSON.stringify([index, null, name])),
          () => this.push(JSON.stringify([index, { ok: false, error: { error: "INTERNAL_ERROR", message: "An internal error occurred" } }])),
        ),
      );
      return;
    }
    this.push(`[${index},${json}]`);
  }

  private push(entry: string): void {
    const bytes = Buffer.byteLength(entry);
    if (this.bytes + bytes > this.blobs.threshold) this.send();
    this.ready.push(entry);
    this.bytes += bytes + 1;
    this.sendNextTurn();
  }

  private send(): void {
    if (!this.ready.length) return;
    const body = `[${this.ready.join(",")}]`;
    this.ready = [];
    this.bytes = 0;
    try {
      this.nc.publish(this.replyTo, encoder.encode(body));
    } catch (err) {
      // the connection is closing: the caller's bound answers its items
      this.onError(err);
    }
  }

  /** Sends what is left once every item has answered. */
  async done(): Promise<void> {
    await Promise.all(this.writes);
    this.send();
  }
}

/** Reads a batch request; null when it is not one (it is then left unanswered and times out). */
export function parseBatch(msg: Msg): RpcBatchRequest | null {
  try {
    return RpcBatchRequest.parse(JSON.parse(decoder.decode(msg.data)));
  } catch {
    return null;
  }
}
