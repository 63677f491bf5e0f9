import type { Msg, NatsConnection, Subscription } from "@nats-io/transport-node";
import { headers as natsHeaders } from "@nats-io/transport-node";
import { SpanKind, SpanStatusCode, context, trace, type Context, type Span } from "@opentelemetry/api";
import { z } from "zod";
import {
  AppError,
  type HttpReply,
  HttpRequest,
  RpcReply,
  zodDetails,
  type RouteDef,
  type RpcDef,
  type ServiceName,
  type WireError,
  type WireNames,
} from "@mailroom/contracts";
import { BLOB_HEADER, type Blobs } from "./blobs.js";
import { extractTrace, extractTraceObject, headersFrom, isBusUnavailable, traceHeaders } from "./nats.js";
import { BatchReplies, RpcCoalescer, parseBatch } from "./rpc-batch.js";
import { isConnectionError } from "./db.js";
import { tracingEnabled } from "./telemetry.js";
import type { Logger } from "./logger.js";
import type { Metrics } from "./metrics.js";

const tracer = trace.getTracer("mailroom-rpc");
const encoder = new TextEncoder();
const decoder = new TextDecoder();

type Infer<T> = T extends z.ZodType ? z.output<T> : Record<string, never>;

/** What a route handler receives: the HTTP request, already validated against the route's schemas. */
export interface RouteInput<R extends RouteDef> {
  projectId: R["auth"] extends "none" ? string | null : string;
  params: Infer<R["params"]>;
  query: Infer<R["query"]>;
  body: Infer<R["body"]>;
  meta: HttpRequest["meta"];
}

export type RouteHandler<R extends RouteDef> = (input: RouteInput<R>) => Promise<HttpReply>;

/** Turns anything thrown by a handler into the wire error. Only AppError keeps its message. */
export function toWireError(err: unknown, log: Logger, operation: string): WireError {
  if (err instanceof AppError) return err.toWire();
  if (err instanceof z.ZodError) {
    return { error: "VALIDATION_ERROR", message: "Request validation failed", details: zodDetails(err) };
  }
  // PostgreSQL gone (restart, failover) or NATS between leaders: a dependency is down, not a bug;
  // the caller may retry.
  if (isConnectionError(err) || isBusUnavailable(err)) {
    log.warn({ err: String(err), operation }, "dependency unreachable");
    return { error: "SERVICE_UNAVAILABLE", message: "A dependency is unavailable, try again" };
  }
  log.error({ err, operation }, "unhandled error in handler");
  return { error: "INTERNAL_ERROR", message: "An internal error occurred" };
}

/**
 * A payload's bytes, and whether they are past the blob threshold (then they travel as a blob and
 * the message carries its name). Synchronous, so a small payload, the common case, costs no await.
 */
function encodePayload(blobs: Blobs, value: unknown): { data: Uint8Array; large: boolean } {
  const data = encoder.encode(JSON.stringify(value));
  return { data, large: data.byteLength > blobs.threshold };
}

function parsePayload(bytes: Uint8Array): unknown {
  return bytes.byteLength ? JSON.parse(decoder.decode(bytes)) : undefined;
}

/** A message's payload: its own bytes, or the blob its header names. */
function decodePayload(blobs: Blobs, msg: Msg): unknown | Promise<unknown> {
  const blob = msg.headers?.get(BLOB_HEADER);
  return blob ? blobs.take(blob).then(parsePayload) : parsePayload(msg.data);
}

type Handler = (payload: unknown) => Promise<unknown>;

/**
 * Serves request-reply operations with a queue group, so N replicas share the load. Every handler
 * validates its input against the contract and answers a RpcReply; nothing thrown escapes.
 */
export class RpcServer {
  private readonly handlers = new Map<string, Handler>();
  private readonly subs: Subscription[] = [];
  private readonly inflight = new Set<Promise<void>>();

  constructor(
    private readonly nc: NatsConnection,
    private readonly names: WireNames,
    private readonly service: ServiceName,
    private readonly blobs: Blobs,
    private readonly log: Logger,
    private readonly metrics: Metrics,
  ) {}

  route<const R extends RouteDef>(route: R, handler: RouteHandler<R>): this {
    if (route.service !== this.service) throw new Error(`${route.operation} belongs to ${route.service}`);
    this.handlers.set(route.operation, async (payload) => {
      const req = HttpRequest.parse(payload);
      if (route.auth !== "none" && !req.projectId) throw new AppError("UNAUTHORIZED", "Unauthorized");
      const params = route.params ? parseIn(route.params, req.params, "params") : {};
      const query = route.query ? parseIn(route.query, req.query, "query") : {};
      const body = route.body ? parseIn(route.body, req.body ?? {}, "body") : req.body;
      // The reply's shape is the handler's type; the gateway checks it once more on arrival (a
      // malformed one is a 500 there), so a second runtime check here would only cost time.
      return handler({ projectId: req.projectId, params, query, body, meta: req.meta } as RouteInput<R>);
    });
    return this;
  }

  rpc<Req extends z.ZodType, Rep extends z.ZodType>(
    def: RpcDef<Req, Rep>,
    handler: (req: z.output<Req>) => Promise<z.input<Rep>>,
  ): this {
    if (def.service !== this.service) throw new Error(`${def.operation} belongs to ${def.service}`);
    this.handlers.set(def.operation, async (payload) => def.reply.parse(await handler(parseIn(def.request, payload, "body"))));
    return this;
  }

  start(): void {
    const queue = this.names.queueGroup(this.service);
    for (const [operation, handler] of this.handlers) {
      const track = (p: Promise<void>) => {
        this.inflight.add(p);
        p.finally(() => this.inflight.delete(p)).catch((err) => this.log.error({ err, operation }, "request handling failed"));
      };
      this.subs.push(
        this.nc.subscribe(this.names.rpc(operation), { queue, callback: (err, msg) => void (err || track(this.handle(operation, handler, msg))) }),
        this.nc.subscribe(this.names.rpcBatch(operation), { queue, callback: (err, msg) => void (err || track(this.handleBatch(operation, handler, msg))) }),
      );
    }
  }

  private async handle(operation: string, handler: Handler, msg: Msg) {
    const reply = await this.traced(operation, extractTrace, msg.headers, () => this.answer(operation, handler, () => decodePayload(this.blobs, msg)));
    try {
      const { data, large } = encodePayload(this.blobs, reply);
      if (large) {
        const h = natsHeaders();
        h.set(BLOB_HEADER, await this.blobs.put(data));
        msg.respond(new Uint8Array(0), { headers: h });
      } else {
        msg.respond(data);
      }
    } catch (err) {
      this.log.error({ err, operation }, "could not send reply");
    }
  }

  /** A coalesced batch (rpc-batch.ts): every item answered on its own, as it finishes. */
  private async handleBatch(operation: string, handler: Handler, msg: Msg) {
    const batch = parseBatch(msg);
    if (!batch || !msg.reply) return this.log.error({ operation }, "malformed batch request");
    const replies = new BatchReplies(this.nc, msg.reply, this.blobs, (err) => this.log.error({ err, operation }, "could not send reply"));
    await Promise.all(
      batch.items.map(async (payload, i) => {
        const reply = await this.traced(operation, extractTraceObject, batch.traces?.[i], () => this.answer(operation, handler, () => payload));
        replies.add(i, reply);
      }),
    );
    await replies.done().catch((err) => this.log.error({ err, operation }, "could not send reply"));
  }

  /** Runs one request under its server span (when tracing is on) and counts it. */
  private async traced<C>(operation: string, extract: (carrier: C | undefined) => Context, carrier: C | undefined, run: () => Promise<RpcReply>): Promise<RpcReply> {
    const started = performance.now();
    let reply: RpcReply;
    if (tracingEnabled()) {
      const ctx = extract(carrier);
      const span = tracer.startSpan(`rpc ${operation}`, { kind: SpanKind.SERVER }, ctx);
      reply = await context.with(trace.setSpan(ctx, span), run);
      if (!reply.ok && reply.error.error === "INTERNAL_ERROR") span.setStatus({ code: SpanStatusCode.ERROR });
      span.end();
    } else {
      reply = await run();
    }
    this.metrics.rpcRequests.inc({ operation, outcome: reply.ok ? "ok" : reply.error.error });
    this.metrics.rpcDuration.observe({ operation }, (performance.now() - started) / 1000);
    return reply;
  }

  /** Reads the payload and runs the handler; nothing either throws escapes. */
  private async answer(operation: string, handler: Handler, payloadOf: () => unknown): Promise<RpcReply> {
    try {
      const payload = payloadOf();
      return { ok: true, result: await handler(payload instanceof Promise ? await payload : payload) };
    } catch (err) {
      return { ok: false, error: toWireError(err, this.log, operation) };
    }
  }

  /** Stops taking requests (other replicas get them) and waits for the ones in flight. */
  async stop(): Promise<void> {
    await Promise.all(this.subs.map((s) => s.drain().catch(() => undefined)));
    await Promise.allSettled([...this.inflight]);
  }
}

function parseIn<T extends z.ZodType>(schema: T, value: unknown, where: string): z.output<T> {
  const r = schema.safeParse(value);
  if (r.success) return r.data;
  throw AppError.validation("Request validation failed", zodDetails(r.error, where === "body" ? undefined : where));
}

/** Calls operations of other services. Every call is bounded; no answer is SERVICE_UNAVAILABLE. */
export class RpcClient {
  /**
   * True between a disconnect and the reconnect. A request then would sit in the client's buffer
   * until its whole bound (30 s for /v1/send) ran out, so it gets 503 at once instead
   * (packages/faults/test/nats-restart.test.ts). Requests already on the wire keep waiting: their
   * answer may still come after the reconnect.
   */
  private disconnected = false;

  /** Null when coalescing is off (RPC_COALESCE=false): every request is a message of its own. */
  private readonly coalescer: RpcCoalescer | null;

  constructor(
    private readonly nc: NatsConnection,
    private readonly names: WireNames,
    private readonly blobs: Blobs,
    private readonly timeoutMs: number,
    opts: { coalesce?: boolean } = {},
  ) {
    this.coalescer = opts.coalesce === false ? null : new RpcCoalescer(nc, names, blobs, (op, data, ms, t) => this.requestOne(op, data, ms, t));
    (async () => {
      for await (const s of nc.status()) {
        if (s.type === "disconnect") this.disconnected = true;
        else if (s.type === "reconnect") this.disconnected = false;
      }
    })().catch(() => undefined);
  }

  /** Sends a raw payload and returns the reply envelope (the gateway maps errors itself). */
  async send(operation: string, payload: unknown, timeoutMs = this.timeoutMs): Promise<RpcReply> {
    if (!tracingEnabled()) return this.exchange(operation, payload, timeoutMs);
    const span = tracer.startSpan(`rpc ${operation}`, { kind: SpanKind.CLIENT });
    try {
      return await context.with(trace.setSpan(context.active(), span), () => this.exchange(operation, payload, timeoutMs, span));
    } finally {
      span.end();
    }
  }

  /** One request and its reply; a bus failure (marked on the span, when there is one) answers 503. */
  private async exchange(operation: string, payload: unknown, timeoutMs: number, span?: Span): Promise<RpcReply> {
    if (this.disconnected) {
      span?.setStatus({ code: SpanStatusCode.ERROR });
      return { ok: false, error: { error: "SERVICE_UNAVAILABLE", message: "The message bus is unavailable, try again" } };
    }
    // undefined (no payload) has no JSON: it travels as an empty message, alone
    const json: string | undefined = JSON.stringify(payload);
    const trace = span ? traceHeaders() : undefined;
    const bytes = json === undefined ? 0 : Buffer.byteLength(json);
    const body = json !== undefined && this.coalescer?.accepts(operation, bytes)
      ? this.coalescer.request(operation, json, bytes, trace, timeoutMs)
      : this.requestOne(operation, encoder.encode(json ?? ""), timeoutMs, trace);
    const reply = RpcReply.parse(await body);
    if (!reply.ok && reply.error.error === "SERVICE_UNAVAILABLE") span?.setStatus({ code: SpanStatusCode.ERROR });
    return reply;
  }

  /** One request on the operation's own subject: its reply body, or the 503 envelope when none came. */
  private async requestOne(operation: string, payload: Uint8Array, timeoutMs: number, trace: Record<string, string> | undefined): Promise<unknown> {
    let data = payload;
    let h = trace ? headersFrom(trace) : undefined;
    if (data.byteLength > this.blobs.threshold) {
      (h ??= natsHeaders()).set(BLOB_HEADER, await this.blobs.put(data));
      data = new Uint8Array(0);
    }
    let msg: Msg;
    try {
      msg = await this.nc.request(this.names.rpc(operation), data, { timeout: timeoutMs, headers: h });
    } catch (err) {
      const noResponders = /no responders|503/i.test(String((err as Error)?.message));
      return {
        ok: false,
        error: {
          error: "SERVICE_UNAVAILABLE",
          message: noResponders ? "The service is not running" : "The service did not answer in time",
        },
      };
    }
    return decodePayload(this.blobs, msg);
  }

  /** Typed call of an internal operation: returns the parsed result or throws the AppError. */
  async call<Req extends z.ZodType, Rep extends z.ZodType>(
    def: RpcDef<Req, Rep>,
    request: z.input<Req>,
    opts: { timeoutMs?: number } = {},
  ): Promise<z.output<Rep>> {
    const reply = await this.send(def.operation, request, opts.timeoutMs);
    if (!reply.ok) throw AppError.fromWire(reply.error);
    return def.reply.parse(reply.result);
  }
}
