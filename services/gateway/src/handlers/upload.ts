import type { IncomingMessage } from "node:http";
import type { FastifyReply, FastifyRequest } from "fastify";
import { HttpReply, bodyLimitOf, zodDetails, type ErrorDetail, type RouteDef, type WireError } from "@mailroom/contracts";
import { BlobTooLarge, type Blobs } from "@mailroom/kit";
import { httpRequestOf, routeTimeoutMs, sendHttpReply, type ForwardDeps } from "./forward.js";
import { sendError } from "./errors.js";

export interface UploadDeps extends ForwardDeps {
  blobs: Blobs;
  /** CONTACT_IMPORT_MAX_BYTES: a deployment's own bound, never above the route's. */
  uploadMaxBytes: number;
}

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
 */
export function uploadHandler(route: RouteDef & { upload: NonNullable<RouteDef["upload"]> }, deps: UploadDeps) {
  const limit = Math.min(bodyLimitOf(route), deps.uploadMaxBytes);
  const timeoutMs = routeTimeoutMs(route, deps.timeouts);
  const refuse = (reply: FastifyReply, err: WireError) => sendError(reply.header("connection", "close"), err);
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

    let upload: { name: string; bytes: number };
    try {
      upload = await deps.blobs.putStream(req.body as IncomingMessage, limit);
    } catch (err) {
      if (err instanceof BlobTooLarge) return refuse(reply, tooLarge(limit));
      throw err;
    }
    const request = httpRequestOf(req, undefined, { upload: { blob: upload.name, bytes: upload.bytes } });
    const answer = await deps.rpc.send(route.operation, request, timeoutMs);
    // Refused: the service did not take the blob, so nothing else will delete it. Timed out: it may
    // have; the store's TTL removes it if not.
    const forget = () => void deps.blobs.delete(upload.name).catch(() => undefined);
    if (!answer.ok) {
      if (answer.error.error !== "SERVICE_UNAVAILABLE") forget();
      return sendError(reply, answer.error);
    }
    const parsed = HttpReply.safeParse(answer.result);
    if (!parsed.success) {
      deps.log.error({ operation: route.operation }, "service answered a malformed reply");
      return sendError(reply, { error: "INTERNAL_ERROR", message: "An internal error occurred" });
    }
    if (parsed.data.status >= 400) forget();
    return sendHttpReply(reply, parsed.data);
  };
}
