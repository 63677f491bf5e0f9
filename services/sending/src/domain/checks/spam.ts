import type { PreSendCheck } from "@mailroom/contracts";

/** The part of rspamd's `/checkv2` answer the check reads (https://rspamd.com/doc/developers/protocol.html). */
export interface RspamdResult {
  score: number;
  required_score?: number;
  action: string;
  symbols?: Record<string, { name?: string; score?: number }>;
}

/** The symbols that added most to the score, named in the detail. */
const TOP = 5;

/**
 * rspamd's action decides the status: `no action` passes; `greylist`, `add header` and `rewrite
 * subject` (a spam folder at most receivers) warn; `soft reject` and `reject` fail. An action this
 * code does not know warns rather than passes.
 */
export function spamCheck(r: RspamdResult): PreSendCheck {
  const action = r.action.toLowerCase();
  const status: PreSendCheck["status"] = action === "no action" ? "pass" : action === "reject" || action === "soft reject" ? "fail" : "warn";
  const top = Object.entries(r.symbols ?? {})
    .map(([name, s]) => ({ name: s.name ?? name, score: s.score ?? 0 }))
    .filter((s) => s.score > 0)
    .sort((a, b) => b.score - a.score)
    .slice(0, TOP)
    .map((s) => `${s.name} (${s.score.toFixed(1)})`);
  const of = r.required_score !== undefined ? ` of ${r.required_score}` : "";
  const why = top.length ? `; most from ${top.join(", ")}` : "";
  return { check: "spam_score", status, detail: `rspamd scores it ${r.score.toFixed(1)}${of} (action: ${action})${why}.` };
}

export const spamUnavailable = (why: string): PreSendCheck => ({ check: "spam_score", status: "warn", detail: `rspamd did not answer (${why}); no spam score.` });
