import { Readable } from "node:stream";
import type { FastifyReply, FastifyRequest } from "fastify";
import { HttpReply, type RouteDef } from "@mailroom/contracts";
import { httpRequestOf, routeTimeoutMs, sendHttpReply, validate, type ForwardDeps } from "./forward.js";
import { sendError } from "./errors.js";

/**
 * A `streamed` route (the CSV export): the service answers one chunk at a time, each naming the
 * next; the gateway asks for the next only once the client has taken the previous one (the stream's
 * backpressure), so neither side holds more than a chunk, however large the answer. Errors before
 * the first byte are the usual Error object; a failure later can only cut the answer short (the
 * client sees a truncated body, and the log says why).
 */
export function streamedHandler(route: RouteDef, deps: ForwardDeps) {
  const timeoutMs = routeTimeoutMs(route, deps.timeouts);
  return async (req: FastifyRequest, reply: FastifyReply) => {
    const details = validate(route, req);
    if (details.length) return sendError(reply, { error: "VALIDATION_ERROR", message: "Request validation failed", details });
    const ask = async (continuation?: string) => {
      const answer = await deps.rpc.send(route.operation, httpRequestOf(req, undefined, continuation ? { continuation } : {}), timeoutMs);
      if (!answer.ok) return answer;
      const parsed = HttpReply.safeParse(answer.result);
      if (parsed.success) return { ok: true as const, reply: parsed.data };
      deps.log.error({ operation: route.operation }, "service answered a malformed reply");
      return { ok: false as const, error: { error: "INTERNAL_ERROR" as const, message: "An internal error occurred" } };
    };
    const first = await ask();
    if (!first.ok) return sendError(reply, first.error);
    if (!first.reply.raw || !first.reply.next) return sendHttpReply(reply, first.reply);

    async function* chunks(head: HttpReply) {
      let r = head;
      for (;;) {
        yield Buffer.from(r.raw!.base64, "base64");
        if (!r.next) return;
        const more = await ask(r.next);
        if (!more.ok || !more.reply.raw) {
          deps.log.warn({ operation: route.operation, error: more.ok ? "no raw chunk" : more.error.error }, "streamed answer cut short");
          throw new Error("streamed answer cut short");
        }
        r = more.reply;
      }
    }
    for (const [k, v] of Object.entries(first.reply.headers ?? {})) reply.header(k, v);
    // one chunk ahead at most: the next is asked for only when the client has read this one
    const body = Readable.from(chunks(first.reply), { objectMode: false, highWaterMark: 1 });
    return reply.code(first.reply.status).type(first.reply.raw.contentType).send(body);
  };
}
