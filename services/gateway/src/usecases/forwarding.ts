import { ERROR_STATUS, HttpReply, type HttpRequest, type WireError } from "@mailroom/contracts";
import type { Logger, RpcClient } from "@mailroom/kit";
import type { IdempotencyKey, IdempotencyKeys } from "./idempotency.js";

export interface ForwardingDeps {
  rpc: RpcClient;
  log: Logger;
}

export type Forwarded = { ok: true; reply: HttpReply } | { ok: false; error: WireError };

/** An Idempotency-Key claimed for this request (usecases/idempotency.ts). */
export interface HeldClaim {
  key: IdempotencyKey;
  claimId: string;
  /** Where the claim is settled. */
  keys: IdempotencyKeys;
}

/**
 * Sends a validated request to its service and settles the request's idempotency claim with the
 * answer. One path for every entry of the gateway that forwards (the HTTP routes and the SMTP relay),
 * so a relayed message is sent, replayed and retried exactly as /v1/send's body is.
 */
export async function forwardSettled(d: ForwardingDeps, operation: string, request: HttpRequest, timeoutMs: number, claim?: HeldClaim): Promise<Forwarded> {
  const settle = async (status: number, replay?: HttpReply) => {
    if (claim) await claim.keys.settle(claim.key, claim.claimId, status, replay);
  };
  let answer: Awaited<ReturnType<RpcClient["send"]>>;
  try {
    answer = await d.rpc.send(operation, request, timeoutMs);
  } catch (err) {
    await settle(500).catch(() => undefined);
    throw err;
  }
  if (!answer.ok) {
    await settle(ERROR_STATUS[answer.error.error]).catch(() => undefined);
    return { ok: false, error: answer.error };
  }
  const parsed = HttpReply.safeParse(answer.result);
  if (!parsed.success) {
    d.log.error({ operation }, "service answered a malformed reply");
    await settle(500).catch(() => undefined);
    return { ok: false, error: { error: "INTERNAL_ERROR", message: "An internal error occurred" } };
  }
  await settle(parsed.data.status, parsed.data);
  return { ok: true, reply: parsed.data };
}
