import { createHash } from "node:crypto";
// The parser, authenticator and sanitizer of received mail are imported where a message first needs
// them, not at start-up: 0.75 CPU-seconds of every sending replica's start on a 2-core machine
// (mailauth alone half a second), where only mail received uses them.
import type { AddressObject, ParsedMail } from "mailparser";
import { contactsRpc, type EventEnvelope, type WireNames } from "@mailroom/contracts";
import { eventMessage, type Logger, type Metrics, newId, type OutboxRelay, type RpcClient, type Sql } from "@mailroom/kit";
import { domainsRepo } from "../db/domains-repo.js";
import { feedbackRepo, type Engagement } from "../db/feedback-repo.js";
import { emailIdOfReport, readReport } from "../domain/feedback.js";
import { RECEIVED_LIMITS, boundHeaderSection, cutSanitizedHtml, cutUtf8, stripControls } from "../domain/inbound-bounds.js";
import { dkimVerdictOf, verdictOf } from "../domain/verdicts.js";
import type { VerpSigner } from "../domain/verp.js";
import type { Resolve } from "../infra/dns.js";
import type { Feedback } from "./feedback.js";

/** One message as the inbound SMTP server took it. */
export interface InboundMessage {
  /** The message, or its first INBOUND_KEEP_BYTES when `truncated`. */
  raw: Buffer;
  truncated: boolean;
  mailFrom: string;
  rcptTo: string[];
  remoteAddress: string;
  helo: string;
  receivedAt: Date;
}

const domainOf = (address: string) => address.slice(address.lastIndexOf("@") + 1).toLowerCase();

/** The From field as it was written (display name included), unfolded. */
const fromHeaderOf = (parsed: ParsedMail) =>
  parsed.headerLines.find((h) => h.key === "from")?.line.replace(/^from:\s*/i, "").replace(/\r?\n[ \t]+/g, " ").trim() ?? null;

const firstAddress = (a: AddressObject | AddressObject[] | undefined) => (Array.isArray(a) ? a[0] : a)?.value[0]?.address ?? null;

/**
 * SPF, DKIM and DMARC verdicts. A truncated message cannot have its DKIM body hash checked, so DKIM
 * is PROCESSING_FAILED then and DMARC too unless it passed anyway (through aligned SPF).
 */
async function verdicts(msg: InboundMessage, resolve: Resolve, mta: string) {
  const { authenticate } = await import("mailauth");
  try {
    const r = await authenticate(msg.raw, {
      ip: msg.remoteAddress,
      helo: msg.helo,
      sender: msg.mailFrom,
      mta,
      resolver: resolve as never,
      disableArc: true,
      disableBimi: true,
    });
    const dmarcVerdict = verdictOf(r.dmarc ? r.dmarc.status.result : "none");
    return {
      spfVerdict: verdictOf(r.spf ? r.spf.status.result : "none"),
      dkimVerdict: msg.truncated ? "PROCESSING_FAILED" : dkimVerdictOf(r.dkim?.results?.map((d) => d.status?.result) ?? []),
      dmarcVerdict: msg.truncated && dmarcVerdict !== "PASS" ? "PROCESSING_FAILED" : dmarcVerdict,
    };
  } catch {
    return { spfVerdict: "PROCESSING_FAILED", dkimVerdict: "PROCESSING_FAILED", dmarcVerdict: "PROCESSING_FAILED" } as const;
  }
}

/** HTML through sanitize-html's defaults (no script, no event handlers, http/https/mailto links) plus images. */
async function sanitize(html: string): Promise<string> {
  const { default: sanitizeHtml } = await import("sanitize-html");
  return sanitizeHtml(html, {
    allowedTags: [...sanitizeHtml.defaults.allowedTags, "img"],
    allowedAttributes: { ...sanitizeHtml.defaults.allowedAttributes, img: ["src", "alt", "width", "height"] },
    allowedSchemesByTag: { img: ["http", "https", "cid"] },
  });
}

/**
 * The body in at most RECEIVED_LIMITS.bodyBytes: HTML is cut BEFORE it is sanitized (so the
 * sanitizer's work is bounded by the limit, not by the message) and again after (escaping can lengthen it).
 */
async function bodyOf(parsed: ParsedMail): Promise<{ value: string; cut: boolean }> {
  const max = RECEIVED_LIMITS.bodyBytes;
  if (parsed.html) {
    const html = cutUtf8(parsed.html, max);
    const clean = cutSanitizedHtml(await sanitize(html.value), max);
    return { value: clean.value, cut: html.cut || clean.cut };
  }
  return cutUtf8(stripControls(parsed.text ?? ""), max);
}

/** The fields of email.received that come from the message, each within its byte bound. */
async function receivedFields(parsed: ParsedMail, msg: InboundMessage, messageId: string) {
  let cut = msg.truncated;
  const bound = (value: string, max: number) => {
    const r = cutUtf8(stripControls(value), max);
    cut ||= r.cut;
    return r.value;
  };
  const from = bound(firstAddress(parsed.from) ?? msg.mailFrom, RECEIVED_LIMITS.addressBytes);
  const fields = {
    messageId: bound(messageId, RECEIVED_LIMITS.messageIdBytes),
    from,
    fromHeader: bound(fromHeaderOf(parsed) ?? from, RECEIVED_LIMITS.fromHeaderBytes),
    subject: bound((parsed.subject ?? "").replace(/[\r\n]+/g, " "), RECEIVED_LIMITS.subjectBytes),
    recipients: msg.rcptTo.map((r) => bound(r, RECEIVED_LIMITS.addressBytes)),
  };
  const body = await bodyOf(parsed);
  return { ...fields, body: body.value, truncated: cut || body.cut };
}

export interface InboundDeps {
  sql: Sql;
  rpc: RpcClient;
  outbox: OutboxRelay;
  names: WireNames;
  feedback: Feedback;
  resolve: Resolve;
  /** Signs and reads the VERP envelope senders of RETURN_PATH_DOMAIN. */
  verp: VerpSigner;
  returnPathDomain: string;
  log: Logger;
  metrics: Metrics;
}

/** Mail the inbound SMTP server takes: reports about Mailroom's mail, and mail to projects' verified domains. */
export class InboundMail {
  constructor(private readonly d: InboundDeps) {}

  /** Recipients the inbound server accepts at RCPT: feedback addresses, or a domain verified by a project. */
  async accepts(address: string): Promise<boolean> {
    const domain = domainOf(address);
    if (domain === this.d.returnPathDomain.toLowerCase()) return true;
    return (await domainsRepo.projectsWithVerified(this.d.sql, domain)).length > 0;
  }

  /**
   * Handles a message accepted by the inbound server. Resolves once everything it causes is durable
   * (so the server answers 250 only then); throws NotYetSent or any failure for a 4xx retry.
   */
  async receive(msg: InboundMessage): Promise<void> {
    // header fields are cut before anything parses or authenticates them
    const bounded = boundHeaderSection(msg.raw);
    const message = { ...msg, raw: bounded.raw, truncated: msg.truncated || bounded.cut };
    const { simpleParser } = await import("mailparser");
    const parsed = await simpleParser(message.raw, { keepDeliveryStatus: true, skipHtmlToText: true, skipTextLinks: true, skipImageLinks: true });
    const feedback = msg.rcptTo.filter((r) => domainOf(r) === this.d.returnPathDomain.toLowerCase());
    const inbound = msg.rcptTo.filter((r) => domainOf(r) !== this.d.returnPathDomain.toLowerCase());
    if (feedback.length) await this.applyReport(parsed, feedback[0]!, message.raw);
    if (inbound.length) await this.emitReceived(parsed, message, inbound);
  }

  /** A DSN or ARF report to a feedback address. Anything else sent there (auto-replies) is dropped. */
  private async applyReport(parsed: ParsedMail, recipient: string, raw: Buffer): Promise<void> {
    const contentType = parsed.headers.get("content-type") as { value?: string; params?: Record<string, string> } | undefined;
    if (contentType?.value?.toLowerCase() !== "multipart/report") return;
    const parts = parsed.attachments.map((a) => ({ contentType: a.contentType.toLowerCase(), text: a.content.toString("utf8") }));
    const report = readReport(contentType.params?.["report-type"] ?? null, parts);
    if (!report) return;
    const named = emailIdOfReport(report, recipient, this.d.verp);
    if ("rejected" in named) {
      // debug only: anyone can send these, and a flood must not flood the logs too
      this.d.log.debug({ recipient, reason: named.rejected, type: report.type }, "feedback report not authenticated by its VERP tag; ignored");
      this.d.metrics.feedbackRejected.inc({ source: report.type, reason: named.rejected });
      return;
    }
    const { emailId } = named;
    const at = new Date();
    const e: Engagement =
      report.type === "arf"
        ? { kind: "complained", at }
        : report.outcome === "delivered"
          ? { kind: "delivered", at }
          : { kind: "bounced", permanent: report.outcome === "permanent", at, diagnostic: report.diagnostic };
    const receiptKey = `smtp:${parsed.messageId ?? createHash("sha256").update(raw).digest("hex")}`;
    const result = await this.d.feedback.record({ emailId, projectId: null }, e, { receiptKey });
    if (result.kind === "unknown") this.d.log.info({ emailId }, "feedback report for an unknown email; ignored");
  }

  /**
   * email.received for each recipient at a verified domain, in each project that verified it
   * (decisions.md §6). The sender's contact is named when the project has one; none is created.
   */
  private async emitReceived(parsed: ParsedMail, msg: InboundMessage, recipients: string[]): Promise<void> {
    const auth = await verdicts(msg, this.d.resolve, this.d.returnPathDomain);
    const { from, fromHeader, subject, recipients: allRecipients, body, messageId, truncated } = await receivedFields(
      parsed,
      msg,
      parsed.messageId ?? `<${newId()}@${this.d.returnPathDomain}>`,
    );
    const events: EventEnvelope[] = [];
    for (const to of recipients) {
      for (const projectId of await domainsRepo.projectsWithVerified(this.d.sql, domainOf(to))) {
        const { contact } = await this.d.rpc.call(contactsRpc.get, { projectId, email: from }).catch(() => ({ contact: null }));
        events.push({
          id: newId(),
          projectId,
          name: "email.received",
          family: "email",
          contactId: contact?.id ?? null,
          email: from,
          data: {
            messageId,
            from,
            fromHeader,
            to: cutUtf8(to, RECEIVED_LIMITS.addressBytes).value,
            subject,
            timestamp: msg.receivedAt.toISOString(),
            recipients: allRecipients,
            hasContent: body.length > 0,
            body,
            // Mailroom's addition: some field was cut to its byte bound, or the message to INBOUND_KEEP_BYTES
            truncated,
            // No spam or virus scanner is part of Mailroom (README: Inbound mail).
            spamVerdict: "PROCESSING_FAILED",
            virusVerdict: "PROCESSING_FAILED",
            ...auth,
            processingTimeMillis: Date.now() - msg.receivedAt.getTime(),
          },
          occurredAt: msg.receivedAt.toISOString(),
        });
      }
    }
    if (!events.length) return;
    await this.d.outbox.transaction(async (tx, emit) => {
      // A client that retries after losing our 250 must not make a second event.
      const fresh: EventEnvelope[] = [];
      for (const e of events) if (await feedbackRepo.receipt(tx, `received:${e.projectId}:${e.data.to}:${messageId}`)) fresh.push(e);
      await emit(fresh.map((e) => eventMessage(this.d.names, e)));
    });
  }
}
