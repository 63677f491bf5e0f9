import { execFileSync } from "node:child_process";
import { createSign, randomUUID } from "node:crypto";
import { mkdtempSync, readFileSync, rmSync, writeFileSync } from "node:fs";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import type { ApiClient } from "@mailroom/testkit";
import { familyEvents, settledEvents } from "./events.js";
import { sendAndWait, startFeedbackPlatform } from "./feedback-helpers.js";
import { uniqueAddress, verifiedDomain } from "./helpers.js";

type Fixture = Awaited<ReturnType<typeof startFeedbackPlatform>>;

const CERT_URL = "https://sns.eu-west-1.amazonaws.com/SimpleNotificationService-test.pem";
const TOPIC = "arn:aws:sns:eu-west-1:123456789012:ses-feedback";

/** A key pair and a self-signed certificate, as SNS would publish at CERT_URL. */
function makeCertificate(dir: string) {
  execFileSync("openssl", ["req", "-x509", "-newkey", "rsa:2048", "-nodes", "-keyout", join(dir, "key.pem"), "-out", join(dir, "cert.pem"),
    "-days", "2", "-subj", "/CN=sns.amazonaws.com"], { stdio: "ignore" });
  return { key: readFileSync(join(dir, "key.pem"), "utf8"), cert: readFileSync(join(dir, "cert.pem"), "utf8") };
}

/** The SNS string to sign, written from the AWS documentation (not from the service's code). */
function canonical(m: Record<string, string>): string {
  const keys = m.Type === "Notification"
    ? ["Message", "MessageId", "Subject", "Timestamp", "TopicArn", "Type"]
    : ["Message", "MessageId", "SubscribeURL", "Timestamp", "Token", "TopicArn", "Type"];
  return keys.filter((k) => m[k] !== undefined).map((k) => `${k}\n${m[k]}\n`).join("");
}

describe("Amazon SES notifications through SNS", () => {
  let f: Fixture;
  let api: ApiClient;
  let anon: ApiClient;
  let projectId: string;
  let domain: string;
  let key: string;
  let dir: string;

  const sns = (fields: Record<string, string>, version: "1" | "2" = "2", certUrl = CERT_URL) => {
    const m: Record<string, string> = { MessageId: randomUUID(), TopicArn: TOPIC, Timestamp: new Date().toISOString(), SignatureVersion: version, SigningCertURL: certUrl, ...fields };
    m.Signature = createSign(version === "1" ? "RSA-SHA1" : "RSA-SHA256").update(canonical(m)).sign(key, "base64");
    return m;
  };
  const notification = (record: unknown, version: "1" | "2" = "2") => sns({ Type: "Notification", Message: JSON.stringify(record) }, version);
  // SNS posts JSON with Content-Type text/plain
  const post = (m: unknown) => anon.post("/webhooks/ses", JSON.stringify(m), { "content-type": "text/plain; charset=UTF-8" });
  const sent = async () => {
    const to = uniqueAddress("ses");
    await api.post("/contacts", { email: to, subscribed: true });
    const r = await sendAndWait(api, { from: `news@${domain}`, to });
    const relayed = await f.relay.to(to);
    return { ...r, to, sesId: relayed.providerId, mail: { messageId: relayed.providerId, commonHeaders: { messageId: r.record.messageId } } };
  };
  const events = (name: string, emailId: string) => familyEvents(f.platform.prefix, "email", projectId, (e) => e.name === name && e.data.emailId === emailId);

  beforeAll(async () => {
    dir = mkdtempSync(join(tmpdir(), "mailroom-sns-"));
    const made = makeCertificate(dir);
    key = made.key;
    writeFileSync(join(dir, "certs.json"), JSON.stringify({ [CERT_URL]: made.cert }));
    f = await startFeedbackPlatform({ SNS_CERTIFICATES_FILE: join(dir, "certs.json") });
    const p = await f.project("ses");
    ({ api, anon } = p);
    projectId = p.id;
    domain = (await verifiedDomain(api, f.zonesFile)).domain;
  });
  afterAll(async () => {
    await f?.destroy();
    if (dir) rmSync(dir, { recursive: true, force: true });
  });

  it("accepts a signed subscription confirmation (SignatureVersion 1)", async () => {
    const m = sns({ Type: "SubscriptionConfirmation", Message: "You have chosen to subscribe", Token: "tok", SubscribeURL: "https://sns.eu-west-1.amazonaws.com/?Action=ConfirmSubscription&Token=tok" }, "1");
    const res = await post(m);
    expect(res.status).toBe(200);
    expect(res.body).toEqual({ success: true });
  });

  it("maps Delivery, Open and Click notifications to their events, matched by the SES message id", async () => {
    const { emailId, mail } = await sent();
    expect((await post(notification({ notificationType: "Delivery", mail: { messageId: mail.messageId }, delivery: { timestamp: "2030-01-01T00:00:00.000Z" } }))).status).toBe(200);
    const [delivery] = await events("email.delivery", emailId);
    expect(delivery!.data.deliveredAt).toBe("2030-01-01T00:00:00.000Z");

    expect((await post(notification({ eventType: "Open", mail: { messageId: mail.messageId }, open: { timestamp: "2030-01-01T00:01:00.000Z" } }, "1"))).status).toBe(200);
    const click = notification({ eventType: "Click", mail: { messageId: mail.messageId }, click: { timestamp: "2030-01-01T00:02:00.000Z", link: "https://shop.example/x" } });
    expect((await post(click)).status).toBe(200);
    expect((await post(click)).status).toBe(200); // SNS retried: applied once
    const [open] = await events("email.open", emailId);
    expect(open!.data).toMatchObject({ opens: 1, isFirstOpen: true, openedAt: "2030-01-01T00:01:00.000Z" });
    const [clicked] = await events("email.click", emailId);
    expect(clicked!.data).toMatchObject({ link: "https://shop.example/x", clicks: 1, isFirstClick: true });
    expect((await api.get(`/emails/${emailId}`)).body).toMatchObject({ status: "CLICKED", opens: 1, clicks: 1 });
  });

  it("maps a permanent Bounce and a Complaint, which unsubscribe the contact", async () => {
    const a = await sent();
    const bounce = { notificationType: "Bounce", mail: a.mail, bounce: { bounceType: "Permanent", bounceSubType: "General", timestamp: new Date().toISOString() } };
    expect((await post(notification(bounce, "1"))).status).toBe(200);
    const [b] = await events("email.bounce", a.emailId);
    expect(b!.data).toMatchObject({ bounceType: "Permanent", transientBounce: false });
    await familyEvents(f.platform.prefix, "contact", projectId, (e) => e.name === "contact.unsubscribed" && e.contactId === a.contactId && e.data.reason === "bounce");

    const c = await sent();
    // matched by our Message-ID when the SES id is not known
    const complaint = { eventType: "Complaint", mail: { messageId: "unknown-ses-id", commonHeaders: c.mail.commonHeaders }, complaint: { timestamp: new Date().toISOString() } };
    expect((await post(notification(complaint))).status).toBe(200);
    await events("email.complaint", c.emailId);
    await familyEvents(f.platform.prefix, "contact", projectId, (e) => e.name === "contact.unsubscribed" && e.contactId === c.contactId && e.data.reason === "complaint");
  });

  it("refuses a bad signature, a certificate from another host and a body that is not SNS, changing nothing", async () => {
    const { emailId, mail } = await sent();
    const good = notification({ notificationType: "Bounce", mail, bounce: { bounceType: "Permanent", timestamp: new Date().toISOString() } });
    const tampered = { ...good, Message: good.Message!.replace("Permanent", "Transient") };
    expect((await post(tampered)).status).toBe(401);
    const forged = sns({ Type: "Notification", Message: good.Message! }, "2", "https://evil.example/SimpleNotificationService-test.pem");
    expect((await post(forged)).status).toBe(401);
    const plainHttp = sns({ Type: "Notification", Message: good.Message! }, "2", CERT_URL.replace("https:", "http:"));
    expect((await post(plainHttp)).status).toBe(401);
    expect((await post({ ...good, Signature: Buffer.alloc(256).toString("base64") })).status).toBe(401);
    expect((await post("not json")).status).toBe(400);
    expect(await settledEvents(f.platform.prefix, "email", projectId, (e) => e.name === "email.bounce" && e.data.emailId === emailId)).toHaveLength(0);
    expect((await api.get(`/emails/${emailId}`)).body.status).toBe("SENT");
  });
});
