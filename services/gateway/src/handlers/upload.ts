import type { IncomingMessage } from "node:http";
import type { FastifyReply, FastifyRequest } from "fastify";
import {
  HttpReply,
  UploadSlotReply,
  bodyLimitOf,
  zodDetails,
  type ErrorDetail,
  type RouteDef,
  type UploadReleaseRequest,
  type UploadSlotRequest,
  type WireError,
} from "@mailroom/contracts";
import { BlobStoreFull, BlobTooLarge, type Blobs } from "@mailroom/kit";
import { httpRequestOf, routeTimeoutMs, sendHttpReply, type ForwardDeps } from "./forward.js";
import { sendError } from "./errors.js";

export interface UploadDeps extends ForwardDeps {
  blobs: Blobs;
  /** CONTACT_IMPORT_MAX_BYTES: a deployment's own bound, never above the route's. */
  uploadMaxBytes: number;
  /** HTTP_REQUEST_TIMEOUT_MS: an upload's place is held at most this long past the route's timeout. */
  requestTimeoutMs: number;
}

const STORE_FULL: WireError = { error: "SERVICE_UNAVAILABLE", message: "The upload store is full; try again later", reason: "upload_store_full" };

const tooLarge = (limit: number): WireError => ({
  error: "PAYLOAD_TOO_LARGE",
  message: `Request body is larger than the limit (${limit} bytes)`,
});

/** The media type of a Content-Type header, without parameters, lower case. */
export function mediaType(header: string | undefined): string {
  return (header ?? "").split(";")[0]!.trim().toLowerCase();
}

/**
 * An `upload` route (a CSV import): the body is streamed into the blob store as it arrives, never
 * held, then the service is asked to take it (`meta.upload`). A declared Content-Length past the
 * limit is refused before a byte is read; a chunked body is counted as it streams and refused the
 * moment it passes the limit, what was stored of it purged. Either way the connection closes, so
 * the client stops sending.
 *
 * With `upload.slots`, the service first gives the upload a place (a project's pending imports are
 * bounded), before the body is read: a project at its limit is refused without a byte of the file
 * reaching the store, and parallel uploads cannot pass the limit together (decisions.md §15).
 */
export function uploadHandler(route: RouteDef & { upload: NonNullable<RouteDef["upload"]> }, deps: UploadDeps) {
  const limit = Math.min(bodyLimitOf(route), deps.uploadMaxBytes);
  const timeoutMs = routeTimeoutMs(route, deps.timeouts);
  const slots = route.upload.slots;
  // the body may take the whole request timeout to arrive, then the service its route's timeout
  const slotMs = deps.requestTimeoutMs + timeoutMs;
  const refuse = (reply: FastifyReply, err: WireError, retryAfter?: number) => {
    if (retryAfter !== undefined) reply.header("Retry-After", String(retryAfter));
    return sendError(reply.header("connection", "close"), err);
  };
  return async (req: FastifyRequest, reply: FastifyReply) => {
    const type = mediaType(req.headers["content-type"]);
    if (!route.upload.contentTypes.includes(type)) {
      const message = `must be one of ${route.upload.contentTypes.join(", ")}`;
      return refuse(reply, {
        error: "VALIDATION_ERROR",
        message: `Content-Type ${message}`,
        reason: "unsupported_content_type",
        details: [{ path: "headers.content-type", message }],
      });
    }
    const declared = Number(req.headers["content-length"] ?? Number.NaN);
    if (declared > limit) return refuse(reply, tooLarge(limit));
    const details: ErrorDetail[] = [];
    for (const [schema, value, where] of [[route.params, req.params, "params"], [route.query, req.query, "query"]] as const) {
      const r = schema?.safeParse(value ?? {});
      if (r && !r.success) details.push(...zodDetails(r.error, where));
    }
    if (details.length) return refuse(reply, { error: "VALIDATION_ERROR", message: "Request validation failed", details });

    const projectId = req.principal?.projectId ?? "";
    let slot: string | undefined;
    if (slots) {
      const taken = await deps.rpc.send(slots.reserve, { projectId, ttlMs: slotMs } satisfies UploadSlotRequest, timeoutMs);
      if (!taken.ok) return refuse(reply, taken.error);
      slot = UploadSlotReply.parse(taken.result).slot;
    }
    // the upload failed or was refused: its place is free again (else it expires after slotMs)
    const release = () => {
      if (slots && slot) void deps.rpc.send(slots.release, { projectId, slot } satisfies UploadReleaseRequest, timeoutMs).catch(() => undefined);
    };

    let upload: { name: string; bytes: number };
    try {
      upload = await deps.blobs.putStream(req.body as IncomingMessage, limit);
    } catch (err) {
      release();
      if (err instanceof BlobTooLarge) return refuse(reply, tooLarge(limit));
      if (err instanceof BlobStoreFull) return refuse(reply, STORE_FULL, 60);
      throw err;
    }
    const request = httpRequestOf(req, undefined, { upload: { blob: upload.name, bytes: upload.bytes, ...(slot ? { slot } : {}) } });
    const answer = await deps.rpc.send(route.operation, request, timeoutMs);
    // Refused: the service did not take the blob, so nothing else will delete it. Timed out: it may
    // have; the store's TTL removes it if not.
    const forget = () => void deps.blobs.delete(upload.name).catch(() => undefined);
    if (!answer.ok) {
      if (answer.error.error !== "SERVICE_UNAVAILABLE") {
        forget();
        release();
      }
      return sendError(reply, answer.error);
    }
    const parsed = HttpReply.safeParse(answer.result);
    if (!parsed.success) {
      deps.log.error({ operation: route.operation }, "service answered a malformed reply");
      return sendError(reply, { error: "INTERNAL_ERROR", message: "An internal error occurred" });
    }
    if (parsed.data.status >= 400) {
      forget();
      release();
    }
    return sendHttpReply(reply, parsed.data);
  };
}
