import { HttpReply, SendEmailResponse, sendingRpc, zodDetails, type RouteDef } from "@mailroom/contracts";
import { ExpiringMap, type Logger, type RpcClient } from "@mailroom/kit";
import type { AuthResult, Authenticator, Principal } from "../domain/authenticator.js";
import type { RateDecision } from "../domain/rate-decision.js";
import { sendRequestOf, submissionKey, type SubmittedMessage } from "../domain/relay-message.js";
import { RELAY_REPLIES, smtpReplyOf, type SmtpReply } from "../domain/relay-replies.js";
import { unstorableText } from "../domain/storable-text.js";
import type { RateLimiter } from "../infra/rate-limiter.js";
import { forwardSettled } from "./forwarding.js";

export interface RelayDeps {
  auth: Authenticator;
  /** The per-key limiter of the HTTP routes: one budget per key, whichever way it sends. */
  limiter: RateLimiter;
  rpc: RpcClient;
  log: Logger;
  /** /v1/send's route: what a relayed message is validated against and forwarded as. */
  sendRoute: RouteDef;
  /** /v1/send's bound on the sending service's answer. */
  timeoutMs: number;
}

export interface Envelope {
  from: string;
  to: string[];
}

export type Submitted = { ok: true; emailIds: string[]; replayed: boolean } | { ok: false; reply: SmtpReply };

/**
 * The SMTP relay's rules (decisions.md §17), apart from the protocol: who may submit (a secret key
 * as the password), from which sender, to how many recipients, and what a message becomes: the
 * /v1/send request that sends it, forwarded through the same path as the HTTP route's.
 */
export class RelaySubmissions {
  /**
   * "project sender" pairs answered verified, reused for a second: a steady client's MAIL FROM costs
   * no round trip to the sending service. A domain deleted meanwhile is still refused by the send
   * itself, which checks the sender again.
   */
  private readonly verified = new ExpiringMap<string, true>(10_000, 1000);

  constructor(private readonly d: RelayDeps) {}

  /** Any username; the password is the key, checked exactly as a Bearer key on a secret-key route. */
  authenticate(password: string, client: string): Promise<AuthResult> {
    return this.d.auth.authenticate(`Bearer ${password}`, "secret", client);
  }

  /** MAIL FROM must be on a domain the key's project verified. */
  async senderVerified(principal: Principal, address: string): Promise<boolean> {
    const key = `${principal.projectId} ${address.split("@").pop()!.toLowerCase()}`;
    if (this.verified.get(key)) return true;
    const { verified } = await this.d.rpc.call(sendingRpc.domainVerified, { projectId: principal.projectId, email: address });
    if (verified) this.verified.set(key, true);
    return verified;
  }

  /** Each recipient costs one request of the key's rate limit: a message to 50 is 50 sends. */
  takeRecipient(principal: Principal): Promise<RateDecision> {
    return this.d.limiter.take(principal.id, principal.rateLimit);
  }

  /**
   * Sends `msg` to the envelope's recipients as one /v1/send. A message sent before with the same
   * Message-ID and recipients is answered with its first emails and sent no second time: the
   * submission's key goes to the sending service as the request's idempotency id, and the unique
   * idempotency key of its emails, written in the statement that queues them, dedupes durably.
   * Two connections submitting the same message at once both get the one send's answer.
   */
  async submit(principal: Principal, msg: SubmittedMessage, envelope: Envelope, meta: { ip: string; sessionId: string }): Promise<Submitted> {
    const body = sendRequestOf(msg, envelope.from, envelope.to);
    if ("kind" in body) return { ok: false, reply: RELAY_REPLIES.unmappable(body) };
    const parsed = this.d.sendRoute.body!.safeParse(body);
    const details = parsed.success ? unstorableText(body, undefined) : zodDetails(parsed.error);
    if (details.length) return { ok: false, reply: smtpReplyOf({ error: "VALIDATION_ERROR", message: "The message cannot be sent", details }) };

    const idempotencyId = submissionKey(msg.messageId, envelope.to);
    const request = {
      projectId: principal.projectId,
      params: {},
      query: {},
      body,
      meta: { requestId: meta.sessionId, ip: meta.ip, userAgent: "smtp-relay", keyKind: "secret" as const, ...(idempotencyId ? { idempotencyId } : {}) },
    };
    const answer = await forwardSettled(this.d, this.d.sendRoute.operation, request, this.d.timeoutMs);
    if (!answer.ok) return { ok: false, reply: smtpReplyOf(answer.error) };
    return { ok: true, emailIds: emailIdsOf(answer.reply), replayed: answer.reply.headers?.["Idempotent-Replayed"] === "true" };
  }
}

/** The email ids of /v1/send's answer (stored as the idempotency replay, or fresh). */
function emailIdsOf(reply: unknown): string[] {
  const http = HttpReply.safeParse(reply);
  const body = http.success ? SendEmailResponse.safeParse(http.data.body) : null;
  return body?.success ? body.data.data.emails.map((e) => e.email) : [];
}
