import type { VerpSigner } from "./verp.js";

/**
 * Reading delivery feedback: DSNs (RFC 3464), ARF complaint reports (RFC 5965) and relay answers.
 * Pure functions; the inbound server and the SES webhook turn their input into these shapes.
 */

export type DsnOutcome = "delivered" | "permanent" | "transient";

/** What the returned headers of the original message (both report types may carry them) name. */
interface Returned {
  originalMessageId: string | null;
  /** The `Return-Path` the final MTA added: our envelope sender, when the report kept it. */
  originalReturnPath: string | null;
}

export type Report =
  | ({ type: "dsn"; outcome: DsnOutcome; status: string | null; diagnostic: string | null; envelopeId: string | null } & Returned)
  | ({ type: "arf"; feedbackType: string; originalMailFrom: string | null } & Returned);

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

const strip = (v: string | undefined) => (v === undefined ? null : v.replace(/^[^;]*;\s*/, "").replace(/^<|>$/g, "").trim() || null);

/** The Message-ID and Return-Path inside the first returned-headers or returned-message part. */
function returned(parts: ReportPart[]): Returned {
  for (const p of parts) {
    if (p.contentType !== "text/rfc822-headers" && p.contentType !== "message/rfc822" && p.contentType !== "message/rfc822-headers") continue;
    const headerText = p.text.replace(/\r\n/g, "\n").split("\n\n")[0] ?? "";
    const fields = fieldBlocks(headerText)[0] ?? {};
    return { originalMessageId: fields["message-id"]?.trim() || null, originalReturnPath: strip(fields["return-path"]) };
  }
  return { originalMessageId: null, originalReturnPath: null };
}

/** Longest diagnostic kept: it is the remote MTA's text, and it travels on an event. */
const MAX_DIAGNOSTIC = 500;

/** A remote MTA's diagnostic as a bounce shows it: one line, control characters removed, bounded. */
export function bounceDiagnostic(text: string | undefined): string | null {
  // biome-ignore lint/suspicious/noControlCharactersInRegex: removing them is the point
  const line = (text ?? "").replace(/[\u0000-\u001f\u007f]+/g, " ").replace(/\s+/g, " ").trim();
  return line ? line.slice(0, MAX_DIAGNOSTIC) : null;
}

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
      diagnostic: bounceDiagnostic(rcpt?.["diagnostic-code"] ?? rcpt?.status),
      envelopeId: perMessage["original-envelope-id"]?.trim() ?? null,
      ...returned(parts),
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
      ...returned(parts),
    };
  }
  return null;
}

/** The email id of a Mailroom Message-ID `<emailId@returnPathDomain>`. */
export function emailIdOfMessageId(messageId: string | null, returnPathDomain: string): string | null {
  if (!messageId) return null;
  const m = new RegExp(`^<?(${UUID})@([^>]+)>?$`, "i").exec(messageId.trim());
  return m && m[2]!.toLowerCase() === returnPathDomain.toLowerCase() ? m[1]!.toLowerCase() : null;
}

/** Why a report changes nothing; counted in `mailroom_feedback_rejected_total`. */
export type RejectReason = "unsigned" | "bad_tag" | "inconsistent";

/**
 * The email a report is about (decisions.md §12). Only a signed VERP address proves it: the VERP
 * recipient of a DSN, or for a complaint its `Original-Mail-From` or the returned `Return-Path`.
 * Every VERP address the report holds must carry a genuine tag, and every other place that names the
 * email (ENVID, the returned Message-ID, which anyone can read off a message) must agree with it.
 * Anything else is forged or garbled and changes nothing.
 */
export function emailIdOfReport(report: Report, verpRecipient: string | null, verp: VerpSigner): { emailId: string } | { rejected: RejectReason } {
  const addresses = [verpRecipient, report.originalReturnPath, report.type === "arf" ? report.originalMailFrom : null].map((a) => verp.read(a));
  if (addresses.some((r) => r.kind === "forged")) return { rejected: "bad_tag" };
  if (addresses.some((r) => r.kind === "unsigned")) return { rejected: "unsigned" };
  const signed = addresses.flatMap((r) => (r.kind === "signed" ? [r.emailId] : []));
  if (!signed.length) return { rejected: "unsigned" };
  const named = [
    ...signed,
    emailIdOfMessageId(report.originalMessageId, verp.domain),
    report.type === "dsn" && new RegExp(`^${UUID}$`, "i").test(report.envelopeId ?? "") ? report.envelopeId!.toLowerCase() : null,
  ].filter((c): c is string => c !== null);
  return new Set(named).size === 1 ? { emailId: signed[0]! } : { rejected: "inconsistent" };
}

/**
 * The relay's id of an accepted message, from its 250 answer. Amazon SES answers `250 Ok <id>`, and
 * its notifications name the message by that id.
 */
export function providerMessageId(response: string | undefined): string | null {
  const m = /^250[ -]Ok ([^\s:]+)\s*$/i.exec((response ?? "").trim());
  return m ? m[1]! : null;
}
