import { z } from "zod";
import { WireError } from "./errors.js";
import type { ServiceName } from "./services.js";
import type { Role } from "./roles.js";

/**
 * A public HTTP route. The gateway registers it, validates params/query/body with these schemas,
 * and forwards an HttpRequest over NATS to `service` on subject `rpc(operation)`; the OpenAPI
 * document is generated from the same objects. One definition, three uses.
 */
export interface RouteDef {
  method: "GET" | "POST" | "PATCH" | "PUT" | "DELETE";
  /** fastify style: `/contacts/:id` */
  path: string;
  service: ServiceName;
  /** RPC operation, e.g. "contacts.list"; the subject is `<prefix>.rpc.<operation>`. */
  operation: string;
  /**
   * secret: sk_ only; any: sk_ or pk_; none: public link (tracking, unsubscribe pages), sign-in;
   * session: a signed-in user only (decisions.md §13). Every secret and any route also accepts a
   * session with the `X-Mailroom-Project` header in place of a key.
   */
  auth: "secret" | "any" | "none" | "session";
  /**
   * The least role a session needs for this route (decisions.md §13); keys are not subject to it.
   * Default (`requiredRole`): viewer for GET, editor for the rest.
   */
  role?: Role;
  summary: string;
  tag: string;
  params?: z.ZodObject;
  query?: z.ZodObject;
  body?: z.ZodType;
  /** Success body (for the OpenAPI document). Omit for 204 and non-JSON answers. */
  response?: z.ZodType;
  /** Default success status (the service may answer another 2xx, e.g. upsert 200 vs 201). */
  status: number;
  /**
   * Bound on the service's answer when the default (RPC_TIMEOUT_MS) is too short for the work, e.g.
   * /v1/send processes up to 50 recipients one after another.
   */
  timeoutMs?: number;
  /** Accepts `Idempotency-Key` (decisions.md §3). */
  idempotent?: boolean;
  /** Browser CORS (`*`, no credentials): /v1/track and a form's POST /f/{id}. */
  cors?: boolean;
  /**
   * A bucket per client address for this route alone (beside the keyless one every route without a
   * key has), checked before the body is read: the form submissions' 10 a minute (decisions.md §17).
   */
  clientLimitPerMinute?: number;
  /** Answer is not JSON (pixel, redirect, HTML page); documented as such. */
  rawResponse?: { contentType: string; description: string };
  /** Body is a form or raw text rather than JSON (SNS, one-click unsubscribe). */
  acceptsAnyContentType?: boolean;
  /**
   * Largest body in bytes, refused with 413 before it is parsed (`bodyLimitOf` gives the default).
   * Only routes whose input is large by nature (/v1/send's base64 attachments) raise it.
   */
  bodyLimit?: number;
  /**
   * The body is a file, never parsed by the gateway: it is streamed into the blob store (refused
   * with 413 past `bodyLimit`, counted as it arrives) and the service receives `meta.upload`, the
   * blob's name and size. Only these content types are accepted (others: 400).
   */
  upload?: {
    contentTypes: readonly string[];
    /**
     * Operations (UploadSlotRequest → UploadSlotReply, UploadReleaseRequest) the gateway calls to
     * take a place for the upload before it reads a byte of the body, and to give it back when the
     * upload fails: a refusal (an error answer) is the answer to the client, before the body is
     * read (decisions.md §15). The place travels as `meta.upload.slot`.
     */
    slots?: { reserve: string; release: string };
  };
  /**
   * The answer is streamed (with `rawResponse` as its type): the service answers a chunk with
   * `next` set, and the gateway asks again with `meta.continuation = next` once the chunk is written
   * to the client, until a chunk comes without `next`. Chunk by chunk, so neither side holds more.
   */
  streamed?: boolean;
}

/**
 * Body limits (decisions.md §12). A route without a key is reachable by anyone, so its body is small
 * (a one-click unsubscribe form, an SNS notification); a keyed route's fits a 1 MB template or
 * campaign body as JSON with room to spare.
 */
export const BODY_LIMITS = { keyless: 64 * 1024, keyed: 2 * 1024 * 1024 } as const;

/** Largest upload (`upload` routes: CSV imports, decisions.md §14); a deployment may lower it. */
export const UPLOAD_MAX_BYTES = 1024 * 1024 * 1024;

/** The body limit the gateway enforces, and the OpenAPI document states, for a route. */
export function bodyLimitOf(route: Pick<RouteDef, "auth" | "bodyLimit">): number {
  return route.bodyLimit ?? (route.auth === "none" ? BODY_LIMITS.keyless : BODY_LIMITS.keyed);
}

/** The least role a session needs for `route`. */
export function requiredRole(route: Pick<RouteDef, "method" | "role">): Role {
  return route.role ?? (route.method === "GET" ? "viewer" : "editor");
}

export function defineRoute<const R extends RouteDef>(route: R): R {
  return route;
}

/**
 * The route of `operation` in a contract's list, typed as that route (its params, query and body),
 * so the handler registered for it is checked against the contract. Throws when the list has none.
 */
export function routeOf<const R extends RouteDef, O extends R["operation"]>(routes: readonly R[], operation: O): Extract<R, { operation: O }> {
  const found = routes.find((r) => r.operation === operation);
  if (!found) throw new Error(`no route ${operation} in the contracts`);
  return found as Extract<R, { operation: O }>;
}

/** What the gateway sends to a service for an HTTP route. */
export const HttpRequest = z.object({
  projectId: z.string().nullable(),
  params: z.record(z.string(), z.unknown()).default({}),
  query: z.record(z.string(), z.unknown()).default({}),
  body: z.unknown().optional(),
  meta: z
    .object({
      requestId: z.string().optional(),
      ip: z.string().optional(),
      userAgent: z.string().optional(),
      contentType: z.string().optional(),
      keyKind: z.enum(["secret", "public"]).optional(),
      /**
       * Set when the request carries an Idempotency-Key: the id of the gateway's claim on that key,
       * the same for the first attempt and every retry of it (a fresh one once the key's record is
       * released or expires). A service that dedupes durably on (project, idempotencyId) makes a
       * retry after a timeout do the work once, whatever the gateway saw.
       */
      idempotencyId: z.string().optional(),
      /**
       * An `upload` route's body, as stored by the gateway: blob name and size in bytes, and the
       * place taken for it before its body was read (`upload.slots`).
       */
      upload: z.object({ blob: z.string(), bytes: z.number().int().min(0), slot: z.string().optional() }).optional(),
      /** A `streamed` route's next chunk: the `next` of the previous reply, as it gave it. */
      continuation: z.string().optional(),
    })
    .default({}),
});
export type HttpRequest = z.infer<typeof HttpRequest>;

/** An upload's place (RouteDef `upload.slots`), held for `ttlMs` unless used or given back first. */
export const UploadSlotRequest = z.object({ projectId: z.string(), ttlMs: z.number().int().min(1).max(3_600_000) });
export type UploadSlotRequest = z.infer<typeof UploadSlotRequest>;
export const UploadSlotReply = z.object({ slot: z.string() });
export type UploadSlotReply = z.infer<typeof UploadSlotReply>;
export const UploadReleaseRequest = z.object({ projectId: z.string(), slot: z.string() });
export type UploadReleaseRequest = z.infer<typeof UploadReleaseRequest>;

/** What a service answers for an HTTP route. */
export const HttpReply = z.object({
  status: z.number().int().min(100).max(599),
  body: z.unknown().optional(),
  headers: z.record(z.string(), z.string()).optional(),
  /** Non-JSON answer: base64 bytes with their content type. */
  raw: z.object({ contentType: z.string(), base64: z.string() }).optional(),
  /** A `streamed` route's answer continues: ask again with this as `meta.continuation`. */
  next: z.string().optional(),
});
export type HttpReply = z.infer<typeof HttpReply>;

/** Internal request-reply operation between services. */
export interface RpcDef<Req extends z.ZodType = z.ZodType, Rep extends z.ZodType = z.ZodType> {
  service: ServiceName;
  operation: string;
  request: Req;
  reply: Rep;
}

export function defineRpc<Req extends z.ZodType, Rep extends z.ZodType>(def: RpcDef<Req, Rep>): RpcDef<Req, Rep> {
  return def;
}

/** Envelope of every RPC reply on the wire. */
export const RpcReply = z.discriminatedUnion("ok", [
  z.object({ ok: z.literal(true), result: z.unknown() }),
  z.object({ ok: z.literal(false), error: WireError }),
]);
export type RpcReply = z.infer<typeof RpcReply>;

/**
 * Requests of one operation coalesced into one message on `rpcBatch(operation)`: each item is what
 * the operation's own subject would carry; `traces[i]` holds item i's trace headers (traceparent).
 */
export const RpcBatchRequest = z.object({
  items: z.array(z.unknown()).min(1),
  traces: z.array(z.record(z.string(), z.string())).optional(),
});
export type RpcBatchRequest = z.infer<typeof RpcBatchRequest>;

/**
 * Replies to a batch, possibly over several messages as items finish: `[index, reply]`, or
 * `[index, null, blob]` when the reply was too big for a message and waits in the blob store.
 * The reply itself is an RpcReply, checked by the caller that receives it.
 */
export const RpcBatchReply = z.array(z.tuple([z.number().int().min(0), z.unknown(), z.string().optional()]));
export type RpcBatchReply = z.infer<typeof RpcBatchReply>;
