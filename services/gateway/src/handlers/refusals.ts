import type { FastifyReply, FastifyRequest } from "fastify";
import type { WireError } from "@mailroom/contracts";
import type { RateDecision } from "../domain/rate-decision.js";
import { sendError } from "./errors.js";

/**
 * An answer given before the body was read (onRequest). The connection closes after it when a body
 * is on its way, so the gateway does not read, only to throw away, what it already refused.
 */
export function refuse(req: FastifyRequest, reply: FastifyReply, err: WireError, retryAfter?: number): void {
  if (retryAfter !== undefined) reply.header("Retry-After", String(retryAfter));
  const length = req.headers["content-length"];
  if ((length !== undefined && length !== "0") || req.headers["transfer-encoding"] !== undefined) reply.header("Connection", "close");
  sendError(reply, err);
}

export function rateHeaders(reply: FastifyReply, d: RateDecision): void {
  reply.header("RateLimit-Limit", String(d.limit));
  reply.header("RateLimit-Remaining", String(d.remaining));
  reply.header("RateLimit-Reset", String(d.resetSeconds));
}
