import { AppError } from "@mailroom/contracts";
import type { Logger, Metrics, Sql } from "@mailroom/kit";
import { feedbackRepo, type Engagement } from "../db/feedback-repo.js";
import { bounceDiagnostic, emailIdOfMessageId } from "../domain/feedback.js";
import { SnsMessage, isSnsSubscribeUrl, refusalOf, verifySnsSignature, type SnsRefusal } from "../domain/sns.js";
import type { SnsClient } from "../infra/sns-certs.js";
import { type Feedback, NotYetSent } from "./feedback.js";

/** The parts of an SES notification or event-publishing record Mailroom reads. */
interface SesRecord {
  notificationType?: string;
  eventType?: string;
  mail?: { messageId?: string; commonHeaders?: { messageId?: string }; headers?: Array<{ name: string; value: string }> };
  delivery?: { timestamp?: string };
  bounce?: { bounceType?: string; timestamp?: string; bouncedRecipients?: Array<{ diagnosticCode?: string; status?: string }> };
  complaint?: { timestamp?: string };
  open?: { timestamp?: string };
  click?: { timestamp?: string; link?: string };
  deliveryDelay?: { timestamp?: string };
}

const when = (ts: string | undefined) => {
  const d = ts ? new Date(ts) : new Date();
  return Number.isNaN(d.getTime()) ? new Date() : d;
};

/** SES types → the engagement they record; others (Send, Reject, Rendering Failure) are ignored. */
function engagementOf(r: SesRecord): { e: Engagement; link?: string } | null {
  switch (r.notificationType ?? r.eventType) {
    case "Delivery":
      return { e: { kind: "delivered", at: when(r.delivery?.timestamp) } };
    case "Bounce": {
      // "Undetermined" is not a hard bounce: only Permanent unsubscribes (api-spec)
      const rcpt = r.bounce?.bouncedRecipients?.[0];
      const diagnostic = bounceDiagnostic(typeof rcpt?.diagnosticCode === "string" ? rcpt.diagnosticCode : typeof rcpt?.status === "string" ? rcpt.status : undefined);
      return { e: { kind: "bounced", permanent: r.bounce?.bounceType === "Permanent", at: when(r.bounce?.timestamp), diagnostic } };
    }
    case "DeliveryDelay":
      return { e: { kind: "bounced", permanent: false, at: when(r.deliveryDelay?.timestamp) } };
    case "Complaint":
      return { e: { kind: "complained", at: when(r.complaint?.timestamp) } };
    case "Open":
      return { e: { kind: "opened", at: when(r.open?.timestamp) } };
    case "Click":
      return r.click?.link ? { e: { kind: "clicked", at: when(r.click.timestamp) }, link: r.click.link } : null;
    default:
      return null;
  }
}


function parseBody(body: unknown): SnsMessage {
  let value = body;
  if (typeof body === "string") {
    try {
      value = JSON.parse(body);
    } catch {
      throw AppError.validation("The body is not an SNS message", [{ path: "body", message: "not JSON" }]);
    }
  }
  const m = SnsMessage.safeParse(value);
  if (!m.success) throw AppError.validation("The body is not an SNS message", [{ path: "body", message: m.error.issues[0]?.message ?? "invalid" }]);
  return m.data;
}

const REFUSED: Record<SnsRefusal, string> = {
  topic: "The SNS topic is not accepted here",
  timestamp: "The SNS message was not signed within the last hour",
  signature_version: "Only SNS SignatureVersion 2 (SHA256) is accepted: set the topic's SignatureVersion attribute to 2",
  certificate_url: "The SNS signing certificate is not Amazon's",
};

/** SES feedback over SNS (decisions.md §12): deliveries, bounces, complaints, opens and clicks of mail sent through SES. */
export class SesFeedback {
  constructor(
    private readonly sql: Sql,
    private readonly feedback: Feedback,
    private readonly sns: SnsClient,
    /** SES_SNS_TOPIC_ARNS; empty, the route answers 404. */
    private readonly topics: ReadonlySet<string>,
    private readonly returnPathDomain: string,
    private readonly log: Logger,
    private readonly metrics: Metrics,
  ) {}

  /**
   * POST /webhooks/ses (decisions.md §12). With no SES_SNS_TOPIC_ARNS the route does not exist (404, as
   * the gateway answers an unknown route). Otherwise the message must come from one of those topics,
   * be signed within the hour with version 2, and name SNS's certificate for the topic's region: all
   * checked before any certificate is fetched or any signature computed, so an anonymous caller costs
   * a JSON parse. Then the signature; a refusal is 401 and changes nothing. A notification about an
   * email not yet recorded as sent is 503, so SNS delivers it again later.
   */
  async handle(body: unknown): Promise<void> {
    const { sns, topics } = this;
    if (topics.size === 0) throw new AppError("NOT_FOUND", "Route POST /webhooks/ses not found");
    const m = parseBody(body);
    const refusal = refusalOf(m, topics, new Date());
    if (refusal) {
      this.log.debug({ topic: m.TopicArn.slice(0, 200), refusal }, "SNS message refused");
      this.metrics.feedbackRejected.inc({ source: "sns", reason: refusal });
      throw new AppError("UNAUTHORIZED", REFUSED[refusal]);
    }
    let cert: Awaited<ReturnType<SnsClient["certificate"]>>;
    try {
      cert = await sns.certificate(m.SigningCertURL);
    } catch (err) {
      this.log.warn({ err: String(err) }, "could not fetch the SNS signing certificate");
      throw new AppError("SERVICE_UNAVAILABLE", "The SNS signing certificate could not be fetched");
    }
    if (!verifySnsSignature(m, cert)) {
      this.metrics.feedbackRejected.inc({ source: "sns", reason: "signature" });
      throw new AppError("UNAUTHORIZED", "Invalid SNS signature");
    }

    if (m.Type === "SubscriptionConfirmation") {
      if (m.SubscribeURL && isSnsSubscribeUrl(m.SubscribeURL, m.TopicArn)) await sns.confirm(m.SubscribeURL);
      return;
    }
    if (m.Type !== "Notification") return;
    let record: SesRecord;
    try {
      record = JSON.parse(m.Message) as SesRecord;
    } catch {
      return; // a test notification from the console is plain text
    }
    const mapped = engagementOf(record);
    if (!mapped) return;
    const emailId = await this.emailIdOf(record);
    if (!emailId) return;
    try {
      await this.feedback.record({ emailId, projectId: null }, mapped.e, { receiptKey: `sns:${m.MessageId}`, link: mapped.link });
    } catch (err) {
      if (err instanceof NotYetSent) throw new AppError("SERVICE_UNAVAILABLE", "The email is not recorded as sent yet");
      throw err;
    }
  }

  /** By the id in SES's `250 Ok <id>` answer; failing that, by our own Message-ID. */
  private async emailIdOf(r: SesRecord): Promise<string | null> {
    if (r.mail?.messageId) {
      const id = await feedbackRepo.idByProviderMessageId(this.sql, r.mail.messageId);
      if (id) return id;
    }
    const header = r.mail?.commonHeaders?.messageId ?? r.mail?.headers?.find((h) => h.name.toLowerCase() === "message-id")?.value ?? null;
    return emailIdOfMessageId(header, this.returnPathDomain);
  }
}
