import { AppError } from "@mailroom/contracts";
import type { Engagement } from "../db/feedback-repo.js";
import { emailIdOfMessageId } from "../domain/feedback.js";
import { SnsMessage, isSnsUrl, verifySnsSignature } from "../domain/sns.js";
import type { SnsClient } from "../infra/sns-certs.js";
import type { Ctx } from "./context.js";
import { NotYetSent, recordFeedback } from "./feedback.js";

/** The parts of an SES notification or event-publishing record Mailroom reads. */
interface SesRecord {
  notificationType?: string;
  eventType?: string;
  mail?: { messageId?: string; commonHeaders?: { messageId?: string }; headers?: Array<{ name: string; value: string }> };
  delivery?: { timestamp?: string };
  bounce?: { bounceType?: string; timestamp?: string };
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
    case "Bounce":
      // "Undetermined" is not a hard bounce: only Permanent unsubscribes (api-spec)
      return { e: { kind: "bounced", permanent: r.bounce?.bounceType === "Permanent", at: when(r.bounce?.timestamp) } };
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

/** By the id in SES's `250 Ok <id>` answer; failing that, by our own Message-ID. */
async function emailIdOf(ctx: Ctx, r: SesRecord): Promise<string | null> {
  if (r.mail?.messageId) {
    const id = await ctx.feedback.idByProviderMessageId(ctx.sql, r.mail.messageId);
    if (id) return id;
  }
  const header = r.mail?.commonHeaders?.messageId ?? r.mail?.headers?.find((h) => h.name.toLowerCase() === "message-id")?.value ?? null;
  return emailIdOfMessageId(header, ctx.returnPathDomain);
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

/**
 * POST /webhooks/ses: the SNS signature is checked before anything is read (certificate only from
 * sns.<region>.amazonaws.com over https); a bad one is 401 and changes nothing. A notification about
 * an email not yet recorded as sent is 503, so SNS delivers it again later.
 */
export async function handleSesWebhook(ctx: Ctx, sns: SnsClient, body: unknown): Promise<void> {
  const m = parseBody(body);
  if (!isSnsUrl(m.SigningCertURL, true)) throw new AppError("UNAUTHORIZED", "The SNS signing certificate is not Amazon's");
  let pem: string;
  try {
    pem = await sns.certificate(m.SigningCertURL);
  } catch (err) {
    ctx.log.warn({ err: String(err) }, "could not fetch the SNS signing certificate");
    throw new AppError("SERVICE_UNAVAILABLE", "The SNS signing certificate could not be fetched");
  }
  if (!verifySnsSignature(m, pem)) throw new AppError("UNAUTHORIZED", "Invalid SNS signature");

  if (m.Type === "SubscriptionConfirmation") {
    if (m.SubscribeURL && isSnsUrl(m.SubscribeURL, false)) await sns.confirm(m.SubscribeURL);
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
  const emailId = await emailIdOf(ctx, record);
  if (!emailId) return;
  try {
    await recordFeedback(ctx, { emailId, projectId: null }, mapped.e, { receiptKey: `sns:${m.MessageId}`, link: mapped.link });
  } catch (err) {
    if (err instanceof NotYetSent) throw new AppError("SERVICE_UNAVAILABLE", "The email is not recorded as sent yet");
    throw err;
  }
}
