/**
 * Reading delivery feedback: DSNs (RFC 3464), ARF complaint reports (RFC 5965) and relay answers.
 * Pure functions; the inbound server and the SES webhook turn their input into these shapes.
 */

export type DsnOutcome = "delivered" | "permanent" | "transient";

export type Report =
  | { type: "dsn"; outcome: DsnOutcome; status: string | null; envelopeId: string | null; originalMessageId: string | null }
  | { type: "arf"; feedbackType: string; originalMailFrom: string | null; originalMessageId: string | null };

/** One MIME part of a multipart/report, decoded to text. */
export interface ReportPart {
  contentType: string;
  text: string;
}

const UUID = "[0-9a-f]{8}-[0-9a-f]{4}-[0-9a-f]{4}-[0-9a-f]{4}-[0-9a-f]{12}";

/**
 * Header-style field blocks (`Name: value`, continuation lines folded in), separated by blank lines:
 * the per-message block and the per-recipient blocks of a DSN, or the one block of an ARF report.
 * Names are lower-cased.
 */
export function fieldBlocks(text: string): Array<Record<string, string>> {
  const blocks: Array<Record<string, string>> = [];
  let current: Record<string, string> = {};
  let last: string | null = null;
  for (const line of text.replace(/\r\n/g, "\n").split("\n")) {
    if (line.trim() === "") {
      if (Object.keys(current).length) blocks.push(current);
      current = {};
      last = null;
    } else if (/^[ \t]/.test(line) && last) {
      current[last] += ` ${line.trim()}`;
    } else {
      const colon = line.indexOf(":");
      if (colon <= 0) continue;
      last = line.slice(0, colon).trim().toLowerCase();
      current[last] = line.slice(colon + 1).trim();
    }
  }
  if (Object.keys(current).length) blocks.push(current);
  return blocks;
}

/**
 * RFC 3464: `Action` delivered/relayed/expanded is a success; `failed` with a 5.x.x status is
 * permanent; `delayed`, or `failed` with 4.x.x (the reporting MTA gave up on temporary errors), is
 * transient. Anything else says nothing.
 */
export function classifyDsn(action: string | undefined, status: string | undefined): DsnOutcome | null {
  const a = (action ?? "").toLowerCase().trim();
  const s = (status ?? "").trim();
  if (a === "delivered" || a === "relayed" || a === "expanded") return "delivered";
  if (a === "delayed") return "transient";
  if (a === "failed") return s.startsWith("4") ? "transient" : "permanent";
  return null;
}

/** The Message-ID header inside a returned-headers or returned-message part. */
function originalMessageId(parts: ReportPart[]): string | null {
  for (const p of parts) {
    if (p.contentType !== "text/rfc822-headers" && p.contentType !== "message/rfc822" && p.contentType !== "message/rfc822-headers") continue;
    const headerText = p.text.replace(/\r\n/g, "\n").split("\n\n")[0] ?? "";
    const id = fieldBlocks(headerText)[0]?.["message-id"];
    if (id) return id.trim();
  }
  return null;
}

const strip = (v: string | undefined) => (v === undefined ? null : v.replace(/^[^;]*;\s*/, "").replace(/^<|>$/g, "").trim() || null);

/** A delivery-status or feedback-report, or null for any other message. */
export function readReport(reportType: string | null, parts: ReportPart[]): Report | null {
  const type = (reportType ?? "").toLowerCase();
  if (type === "delivery-status") {
    const part = parts.find((p) => p.contentType === "message/delivery-status" || p.contentType === "message/global-delivery-status");
    if (!part) return null;
    const [perMessage = {}, ...recipients] = fieldBlocks(part.text);
    // Mailroom sends one recipient per message; the first recipient block with an action decides.
    const rcpt = recipients.find((r) => r.action) ?? (perMessage.action ? perMessage : undefined);
    const outcome = rcpt ? classifyDsn(rcpt.action, rcpt.status) : null;
    if (!outcome) return null;
    return {
      type: "dsn",
      outcome,
      status: rcpt?.status?.trim() ?? null,
      envelopeId: perMessage["original-envelope-id"]?.trim() ?? null,
      originalMessageId: originalMessageId(parts),
    };
  }
  if (type === "feedback-report") {
    const part = parts.find((p) => p.contentType === "message/feedback-report");
    if (!part) return null;
    const fields = fieldBlocks(part.text)[0] ?? {};
    return {
      type: "arf",
      feedbackType: (fields["feedback-type"] ?? "abuse").toLowerCase(),
      originalMailFrom: strip(fields["original-mail-from"]),
      originalMessageId: originalMessageId(parts),
    };
  }
  return null;
}

/** The email id of a VERP address `bounces+<emailId>@<returnPathDomain>`. */
export function emailIdOfVerp(address: string | null, returnPathDomain: string): string | null {
  if (!address) return null;
  const m = new RegExp(`^bounces\\+(${UUID})@(.+)$`, "i").exec(address.trim());
  return m && m[2]!.toLowerCase() === returnPathDomain.toLowerCase() ? m[1]!.toLowerCase() : null;
}

/** The email id of a Mailroom Message-ID `<emailId@returnPathDomain>`. */
export function emailIdOfMessageId(messageId: string | null, returnPathDomain: string): string | null {
  if (!messageId) return null;
  const m = new RegExp(`^<?(${UUID})@([^>]+)>?$`, "i").exec(messageId.trim());
  return m && m[2]!.toLowerCase() === returnPathDomain.toLowerCase() ? m[1]!.toLowerCase() : null;
}

/**
 * Every place a report names the email must agree: the VERP recipient, ENVID, the original
 * Message-ID and the original envelope sender. One id named consistently is the email; ids that
 * disagree mean a forged or garbled report, which changes nothing.
 */
export function emailIdOfReport(report: Report, verpRecipient: string | null, returnPathDomain: string): string | null {
  const candidates = [
    emailIdOfVerp(verpRecipient, returnPathDomain),
    emailIdOfMessageId(report.originalMessageId, returnPathDomain),
    report.type === "dsn" ? (new RegExp(`^${UUID}$`, "i").test(report.envelopeId ?? "") ? report.envelopeId!.toLowerCase() : null) : null,
    report.type === "arf" ? emailIdOfVerp(report.originalMailFrom, returnPathDomain) : null,
  ].filter((c): c is string => c !== null);
  const unique = new Set(candidates);
  return unique.size === 1 ? candidates[0]! : null;
}

/**
 * The relay's id of an accepted message, from its 250 answer. Amazon SES answers `250 Ok <id>`, and
 * its notifications name the message by that id.
 */
export function providerMessageId(response: string | undefined): string | null {
  const m = /^250[ -]Ok ([^\s:]+)\s*$/i.exec((response ?? "").trim());
  return m ? m[1]! : null;
}
