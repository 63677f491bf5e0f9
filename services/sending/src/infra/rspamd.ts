import { z } from "zod";
import type { RspamdResult } from "../domain/checks/spam.js";

export type RspamdCheck = (message: Buffer, envelope: { from: string; rcpt: string }) => Promise<RspamdResult>;

const Answer = z.object({
  score: z.number(),
  required_score: z.number().optional(),
  action: z.string(),
  symbols: z.record(z.string(), z.object({ name: z.string().optional(), score: z.number().optional() })).optional(),
});

/** Answers past this are not rspamd's (a misconfigured URL pointing at a web page): refused unread. */
const MAX_ANSWER_BYTES = 1024 * 1024;

/**
 * rspamd's normal worker protocol over HTTP (`POST /checkv2`, the raw message as the body, the
 * envelope in headers; no `IP` header, since no relay has seen the message yet, so rspamd skips its
 * IP-based rules). `url` is the operator's RSPAMD_URL, never a tenant's. Bounded by `timeoutMs`
 * from the request to the last byte of the answer; throws on any failure (the caller reports it).
 */
export function createRspamdCheck(url: string, timeoutMs: number, password?: string): RspamdCheck {
  const endpoint = new URL("checkv2", url.endsWith("/") ? url : `${url}/`);
  return async (message, envelope) => {
    const res = await fetch(endpoint, {
      method: "POST",
      body: new Uint8Array(message),
      headers: {
        "content-type": "message/rfc822",
        From: envelope.from,
        Rcpt: envelope.rcpt,
        ...(password ? { Password: password } : {}),
      },
      signal: AbortSignal.timeout(timeoutMs),
    });
    const length = Number(res.headers.get("content-length") ?? 0);
    if (length > MAX_ANSWER_BYTES) throw new Error(`answer of ${length} bytes`);
    if (!res.ok) throw new Error(`HTTP ${res.status}`);
    const text = await res.text();
    if (text.length > MAX_ANSWER_BYTES) throw new Error("answer too large");
    return Answer.parse(JSON.parse(text));
  };
}
