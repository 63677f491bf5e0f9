import { setImmediate as nextTurn } from "node:timers/promises";
import PQueue from "p-queue";
import { AppError, type CheckedContent, type MessageChecksRpcRequest, type PreSendCheck } from "@mailroom/contracts";
import type { Sql } from "@mailroom/kit";
import { domainsRepo } from "../db/domains-repo.js";
import { dkimCheck, dmarcCheck, organizationalDomain, spfCheck } from "../domain/checks/auth.js";
import { htmlSizeCheck, imageAltCheck, mergeChecks, oneClickCheck, privateLinksCheck, unsubscribeLinkCheck } from "../domain/checks/content.js";
import { scanHtml } from "../domain/checks/html-scan.js";
import { spamCheck, spamUnavailable } from "../domain/checks/spam.js";
import { composeMessage, messageIdFor } from "../domain/compose.js";
import { domainOf } from "../domain/domains.js";
import type { LinkSigner } from "../domain/links.js";
import { messageBytes } from "../domain/raw-message.js";
import { parseTemplate, renderTemplate } from "../domain/render.js";
import { addTracking } from "../domain/tracking.js";
import type { TxtLookup } from "../infra/dns.js";
import type { RspamdCheck } from "../infra/rspamd.js";
import type { ProjectSettings } from "./lookups.js";

/** The email id the sample message's links are signed with: no email has it, so they lead nowhere. */
const SAMPLE_EMAIL_ID = "00000000-0000-4000-8000-000000000000";
const SAMPLE_RECIPIENT = "recipient@example.com";

/**
 * Checks rendered at once per replica. Rendering and scanning are CPU on the event loop that also
 * delivers mail (each bounded: 150 ms of Liquid, a linear scan of at most 2 M characters), so a
 * burst of checks queues here rather than taking turns with every delivery at once; the waits
 * (DNS, rspamd) are outside this limit.
 */
const RENDER_CONCURRENCY = 2;
/** Checks waiting for a render slot before more are refused (503): the queue's memory bound. */
const MAX_WAITING = 50;
/**
 * Bound on one DNS lookup of the checks (below DNS_TIMEOUT_MS when that is set higher): the DMARC
 * check may need two in a row, and the whole answer must fit MESSAGE_CHECKS_TIMEOUT_MS.
 */
export const CHECKS_DNS_TIMEOUT_MS = 2500;

interface ContentResult {
  label: string | null;
  checks: PreSendCheck[];
  /** The message as the relay would take it, unsigned, for rspamd; null when the body did not render. */
  message: Buffer | null;
  /** The headers Mailroom writes on it (one-click unsubscribe); null when the body did not render. */
  headers: Record<string, string> | null;
}

/**
 * Pre-send checks of a message (decisions.md §18): the sender domain's DNS looked up live through
 * DNS_SERVER (each lookup bounded by DNS_TIMEOUT_MS), each version of the content rendered as a
 * recipient without contact data would get it (tracking as the project has it), and, when the
 * platform has rspamd, its verdict on each. Every step is bounded; a lookup that times out counts as
 * nothing published, and rspamd that does not answer is a warning.
 */
export class MessageChecks {
  private readonly renders = new PQueue({ concurrency: RENDER_CONCURRENCY });

  constructor(
    private readonly sql: Sql,
    private readonly txt: TxtLookup,
    private readonly settings: ProjectSettings,
    private readonly links: LinkSigner,
    private readonly returnPathDomain: string,
    private readonly rspamd: RspamdCheck | null,
  ) {}

  async check(req: MessageChecksRpcRequest): Promise<PreSendCheck[]> {
    if (this.renders.size >= MAX_WAITING) throw new AppError("SERVICE_UNAVAILABLE", "Too many checks are running; try again in a moment");
    // DNS beside the content and rspamd: the slowest of them bounds the answer, not their sum
    const auth = this.authChecks(req.projectId, domainOf(req.from));
    // awaited below; until then a failure must not count as an unhandled rejection (the process would exit)
    auth.catch(() => undefined);
    const tracking = (await this.settings.get(req.projectId)).tracking;
    const contents: ContentResult[] = [];
    for (const content of req.contents) {
      contents.push((await this.renders.add(() => this.contentChecks(req, content, tracking)))!);
      await nextTurn();
    }
    const [authChecks, spam] = await Promise.all([auth, this.rspamd ? this.spamChecks(req, contents) : Promise.resolve([])]);
    const dkimPasses = authChecks.find((c) => c.check === "dkim")?.status === "pass";
    for (const c of contents) if (c.headers) c.checks.unshift(oneClickCheck(c.headers, req.marketing, dkimPasses));
    return [...authChecks, ...merged(contents), ...spam];
  }

  /** SPF, DKIM and DMARC of the From domain, the lookups in parallel (DMARC's fallback to the organizational domain after). */
  private async authChecks(projectId: string, domain: string): Promise<PreSendCheck[]> {
    const known = await domainsRepo.byName(this.sql, projectId, domain);
    const dkimRecord = known?.records.find((r) => r.purpose === "dkim");
    const [spfTxt, dkimTxt, dmarcTxt] = await Promise.all([
      this.txt(domain),
      dkimRecord ? this.txt(dkimRecord.name) : Promise.resolve([]),
      this.txt(`_dmarc.${domain}`),
    ]);
    let dmarc = { recordDomain: domain as string | null, txt: dmarcTxt };
    const org = organizationalDomain(domain);
    if (!dmarcTxt.some((t) => /^v=DMARC1/i.test(t.trim())) && org !== domain) dmarc = { recordDomain: org, txt: await this.txt(`_dmarc.${org}`) };
    const dkim = dkimRecord
      ? dkimCheck(dkimRecord.name, dkimTxt, dkimKeyOf(dkimRecord.value))
      : { check: "dkim" as const, status: "fail" as const, detail: `${domain} is not a sending domain of this project, so nothing is signed for it. Add it on the Domains page.` };
    return [
      spfCheck(domain, spfTxt, this.returnPathDomain),
      dkim,
      dmarcCheck({ fromDomain: domain, ...dmarc, dkimPasses: dkim.status === "pass", returnPathDomain: this.returnPathDomain }),
    ];
  }

  /**
   * One version rendered and checked. The scan reads the HTML before tracking rewrites it (the links
   * and images the author wrote, not Mailroom's click URLs and pixel); the size is the tracked HTML's,
   * which is what the recipient's mailbox receives.
   */
  private async contentChecks(req: MessageChecksRpcRequest, content: CheckedContent, tracking: boolean): Promise<ContentResult> {
    const { projectId } = req;
    let html: string;
    let subject: string;
    try {
      const rendered = await renderTemplate(parseTemplate(content), this.links.withSubscriptionUrls({}, SAMPLE_EMAIL_ID, projectId));
      ({ html, subject } = rendered);
    } catch (err) {
      const why = err instanceof AppError ? (err.details?.map((d) => d.message).join("; ") ?? err.message) : String(err);
      return { label: content.label, checks: [{ check: "render", status: "fail", detail: `The body cannot be rendered: ${why}` }], message: null, headers: null };
    }
    const facts = scanHtml(html);
    const sent = tracking ? addTracking(html, trackingUrls(this.links, projectId)).html : html;
    const message = composeMessage(
      {
        id: SAMPLE_EMAIL_ID,
        to: SAMPLE_RECIPIENT,
        toName: null,
        from: req.from,
        fromName: req.fromName ?? null,
        replyTo: req.replyTo ?? null,
        subject,
        html: sent,
        headers: {},
        marketing: req.marketing,
        messageId: messageIdFor(SAMPLE_EMAIL_ID, this.returnPathDomain),
      },
      [],
      { envelopeSender: `bounces@${this.returnPathDomain}`, unsubscribeUrl: this.links.url("u", SAMPLE_EMAIL_ID, projectId) },
    );
    const own = (url: string) => this.links.isOwn(url);
    const checks: PreSendCheck[] = [];
    if (req.marketing) checks.push(unsubscribeLinkCheck(facts.anchors, (url) => this.pageOf(url, projectId)));
    checks.push(htmlSizeCheck(Buffer.byteLength(sent, "utf8")), imageAltCheck(facts), privateLinksCheck(facts, own));
    const headers = (message.headers ?? {}) as Record<string, string>;
    return { label: content.label, checks, headers, message: this.rspamd ? await messageBytes(message) : null };
  }

  /** Which subscription page of the sample email a link opens, if any (the template may add a query). */
  private pageOf(url: string, projectId: string): "unsubscribe" | "manage" | null {
    if (url.startsWith(this.links.url("u", SAMPLE_EMAIL_ID, projectId))) return "unsubscribe";
    if (url.startsWith(this.links.url("m", SAMPLE_EMAIL_ID, projectId))) return "manage";
    return null;
  }

  /** rspamd's verdict on each version, in parallel (each bounded by the client's timeout). */
  private async spamChecks(req: MessageChecksRpcRequest, contents: ContentResult[]): Promise<PreSendCheck[]> {
    const rspamd = this.rspamd!;
    const judged = contents.filter((c) => c.message !== null);
    if (judged.length === 0) return [];
    const results = await Promise.all(
      judged.map(async (c) => {
        try {
          return { label: c.label, check: spamCheck(await rspamd(c.message!, { from: req.from, rcpt: SAMPLE_RECIPIENT })) };
        } catch (err) {
          const why = (err as Error)?.name === "TimeoutError" ? "timed out" : String((err as Error)?.message ?? err).slice(0, 200);
          return { label: c.label, check: spamUnavailable(why) };
        }
      }),
    );
    return [mergeChecks(results)];
  }
}

/** Each content check across the versions, in the order of the first version's list. */
function merged(contents: ContentResult[]): PreSendCheck[] {
  const names = [...new Set(contents.flatMap((c) => c.checks.map((k) => k.check)))];
  return names.map((name) =>
    mergeChecks(contents.flatMap((c) => c.checks.filter((k) => k.check === name).map((check) => ({ label: c.label, check })))),
  );
}

/** The `p=` of the DKIM record Mailroom generated for the domain (domain/domains.ts writes it). */
const dkimKeyOf = (value: string) => /p=([^;\s]+)/.exec(value)?.[1] ?? "";

const trackingUrls = (links: LinkSigner, projectId: string) => ({
  click: (index: number) => links.url("c", SAMPLE_EMAIL_ID, projectId, index),
  pixel: links.url("o", SAMPLE_EMAIL_ID, projectId),
  isOwn: (url: string) => links.isOwn(url),
});
