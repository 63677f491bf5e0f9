import { X509Certificate, createVerify } from "node:crypto";
import { z } from "zod";

/** An Amazon SNS HTTP(S) message (Notification, SubscriptionConfirmation, UnsubscribeConfirmation). */
export const SnsMessage = z.object({
  Type: z.enum(["Notification", "SubscriptionConfirmation", "UnsubscribeConfirmation"]),
  MessageId: z.string().min(1),
  TopicArn: z.string().min(1),
  Message: z.string(),
  Timestamp: z.string().min(1),
  SignatureVersion: z.enum(["1", "2"]),
  Signature: z.string().min(1),
  SigningCertURL: z.string().min(1),
  Subject: z.string().optional(),
  SubscribeURL: z.string().optional(),
  Token: z.string().optional(),
});
export type SnsMessage = z.infer<typeof SnsMessage>;

/**
 * Only certificates (and subscription confirmations) of Amazon SNS itself, over https: a message
 * that names another host could bring its own key, or make us fetch an internal address.
 */
export function isSnsUrl(url: string, requirePem: boolean): boolean {
  let u: URL;
  try {
    u = new URL(url);
  } catch {
    return false;
  }
  if (u.protocol !== "https:" || u.port !== "" || u.username || u.password) return false;
  if (!/^sns\.[a-z0-9-]+\.amazonaws\.com(\.cn)?$/.test(u.hostname)) return false;
  return !requirePem || u.pathname.endsWith(".pem");
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

/** SignatureVersion 1 is SHA1withRSA, 2 is SHA256withRSA, with the key of the signing certificate. */
export function verifySnsSignature(m: SnsMessage, certificatePem: string, now = new Date()): boolean {
  try {
    const cert = new X509Certificate(certificatePem);
    if (now < new Date(cert.validFrom) || now > new Date(cert.validTo)) return false;
    const verifier = createVerify(m.SignatureVersion === "1" ? "RSA-SHA1" : "RSA-SHA256");
    verifier.update(stringToSign(m), "utf8");
    return verifier.verify(cert.publicKey, m.Signature, "base64");
  } catch {
    return false;
  }
}
