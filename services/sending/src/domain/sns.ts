import { X509Certificate, createVerify } from "node:crypto";
import { z } from "zod";

/** An Amazon SNS HTTP(S) message (Notification, SubscriptionConfirmation, UnsubscribeConfirmation). */
export const SnsMessage = z.object({
  Type: z.enum(["Notification", "SubscriptionConfirmation", "UnsubscribeConfirmation"]),
  MessageId: z.string().min(1).max(256),
  TopicArn: z.string().min(1).max(1024),
  Message: z.string(),
  Timestamp: z.string().min(1).max(64),
  SignatureVersion: z.string().min(1).max(8),
  Signature: z.string().min(1).max(4096),
  SigningCertURL: z.string().min(1).max(2048),
  Subject: z.string().optional(),
  SubscribeURL: z.string().max(4096).optional(),
  Token: z.string().optional(),
});
export type SnsMessage = z.infer<typeof SnsMessage>;

/**
 * `arn:<partition>:sns:<region>:<account>:<topic>`. The partition decides SNS's domain: the China
 * regions live under amazonaws.com.cn, every other partition under amazonaws.com.
 */
const TOPIC_ARN = /^arn:(aws|aws-cn|aws-us-gov):sns:([a-z]{2}(?:-[a-z]+)+-\d{1,2}):(\d{12}):([A-Za-z0-9_-]{1,256}(?:\.fifo)?)$/;

export const isTopicArn = (arn: string) => TOPIC_ARN.test(arn);

/** SNS's own host for a topic: `sns.<region>.amazonaws.com` (`.com.cn` in China), or null for no ARN. */
export function snsHostOf(topicArn: string): string | null {
  const m = TOPIC_ARN.exec(topicArn);
  if (!m) return null;
  return `sns.${m[2]}.amazonaws.com${m[1] === "aws-cn" ? ".cn" : ""}`;
}

/** SNS allows an hour of retries at most; a message signed longer ago than that is a replay. */
export const MAX_SNS_AGE_MS = 60 * 60 * 1000;

/** Why a message is refused before any certificate is fetched. */
export type SnsRefusal = "topic" | "timestamp" | "signature_version" | "certificate_url";

/**
 * Checks everything that needs no network and no public-key work, in the order that costs least
 * (decisions.md §12): the topic must be one of ours, the timestamp within an hour, the signature
 * version 2 (SHA256withRSA), and the certificate URL SNS's own, in the topic's region, over https.
 *
 * Version 1 (SHA1withRSA) is refused: the topic owner, who is the operator listing the topic in
 * SES_SNS_TOPIC_ARNS, can switch any topic to version 2 with one SetTopicAttributes call, so there is
 * no sender left that needs SHA1.
 */
export function refusalOf(m: SnsMessage, topics: ReadonlySet<string>, now: Date): SnsRefusal | null {
  if (!topics.has(m.TopicArn)) return "topic";
  const at = Date.parse(m.Timestamp);
  if (Number.isNaN(at) || Math.abs(now.getTime() - at) > MAX_SNS_AGE_MS) return "timestamp";
  if (m.SignatureVersion !== "2") return "signature_version";
  if (!isSnsCertificateUrl(m.SigningCertURL, m.TopicArn)) return "certificate_url";
  return null;
}

function snsUrl(url: string, topicArn: string): URL | null {
  let u: URL;
  try {
    u = new URL(url);
  } catch {
    return null;
  }
  if (u.protocol !== "https:" || u.port !== "" || u.username || u.password || u.hash) return null;
  return u.hostname === snsHostOf(topicArn) ? u : null;
}

/**
 * SNS's certificate for the topic's region: `https://sns.<region>.amazonaws.com/SimpleNotificationService-<id>.pem`
 * and nothing else, so a message can neither bring its own key nor make us fetch another address.
 */
export function isSnsCertificateUrl(url: string, topicArn: string): boolean {
  const u = snsUrl(url, topicArn);
  return u !== null && u.search === "" && /^\/SimpleNotificationService-[A-Za-z0-9_-]{1,128}\.pem$/.test(u.pathname);
}

/** The confirmation link of a subscription to that topic, on SNS's host in the topic's region. */
export function isSnsSubscribeUrl(url: string, topicArn: string): boolean {
  const u = snsUrl(url, topicArn);
  if (!u || u.pathname !== "/" || u.searchParams.get("Action") !== "ConfirmSubscription") return false;
  const topic = u.searchParams.get("TopicArn");
  return topic === null || topic === topicArn;
}

/** The string SNS signs: chosen fields as `Name\nvalue\n`, in this order, absent ones left out. */
export function stringToSign(m: SnsMessage): string {
  const fields =
    m.Type === "Notification"
      ? (["Message", "MessageId", "Subject", "Timestamp", "TopicArn", "Type"] as const)
      : (["Message", "MessageId", "SubscribeURL", "Timestamp", "Token", "TopicArn", "Type"] as const);
  return fields
    .filter((f) => m[f] !== undefined)
    .map((f) => `${f}\n${m[f]}\n`)
    .join("");
}

/** SignatureVersion 2: SHA256withRSA with the key of the signing certificate, valid now. */
export function verifySnsSignature(m: SnsMessage, cert: X509Certificate, now = new Date()): boolean {
  try {
    if (m.SignatureVersion !== "2") return false;
    if (now < new Date(cert.validFrom) || now > new Date(cert.validTo)) return false;
    const verifier = createVerify("RSA-SHA256");
    verifier.update(stringToSign(m), "utf8");
    return verifier.verify(cert.publicKey, m.Signature, "base64");
  } catch {
    return false;
  }
}
