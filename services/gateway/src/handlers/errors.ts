import type { Duplex } from "node:stream";
import type { FastifyReply } from "fastify";
import { AppError, ERROR_STATUS, toErrorBody, type WireError } from "@mailroom/contracts";

/** The one place an error becomes an HTTP answer: the Error object, the status from the contract. */
export function sendError(reply: FastifyReply, err: WireError | AppError): FastifyReply {
  const wire = err instanceof AppError ? err.toWire() : err;
  return reply.code(ERROR_STATUS[wire.error]).type("application/json; charset=utf-8").send(toErrorBody(wire));
}

export const UNAUTHORIZED: WireError = {
  error: "UNAUTHORIZED",
  message: "Missing or invalid API key",
};

/** fastify's own errors (body parsing, limits) mapped onto the contract's values. */
export function fromFastifyError(err: { code?: string; statusCode?: number; message?: string }): WireError {
  const status = err.statusCode ?? 500;
  if (status === 413 || err.code === "FST_ERR_CTP_BODY_TOO_LARGE") {
    return { error: "PAYLOAD_TOO_LARGE", message: "Request body is larger than the limit" };
  }
  if (err.code === "FST_ERR_CTP_EMPTY_JSON_BODY") {
    return { error: "VALIDATION_ERROR", message: "Body must not be empty when Content-Type is application/json" };
  }
  if (err.code?.includes("JSON") || err.message?.includes("JSON") || err.code === "FST_ERR_CTP_INVALID_CONTENT_LENGTH") {
    return { error: "VALIDATION_ERROR", message: "Malformed JSON body" };
  }
  if (status >= 400 && status < 500) return { error: "VALIDATION_ERROR", message: "Bad request" };
  return { error: "INTERNAL_ERROR", message: "An internal error occurred" };
}

/**
 * Errors of the HTTP parser (request line or headers past Node's limit, malformed HTTP) and a
 * request that did not arrive within HTTP_REQUEST_TIMEOUT_MS: answered on the raw socket, still with
 * the Error object, then the socket closes.
 */
export function clientErrorHandler(err: NodeJS.ErrnoException, socket: Duplex): void {
  if (err.code === "ECONNRESET" || socket.destroyed) return;
  const message =
    err.code === "HPE_HEADER_OVERFLOW"
      ? "Request line and headers are larger than the limit"
      : err.code === "ERR_HTTP_REQUEST_TIMEOUT"
        ? "The request did not arrive in time"
        : "Malformed HTTP request";
  const body = JSON.stringify(toErrorBody({ error: "VALIDATION_ERROR", message }));
  if (socket.writable) {
    socket.write(
      `HTTP/1.1 400 Bad Request\r\nContent-Type: application/json; charset=utf-8\r\nContent-Length: ${Buffer.byteLength(body)}\r\nConnection: close\r\n\r\n${body}`,
    );
  }
  socket.destroy(err);
}
