import { execFileSync } from "node:child_process";
import { createSign, randomUUID } from "node:crypto";
import { mkdtempSync, readFileSync, rmSync, writeFileSync } from "node:fs";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { apiClient, sharedPlatform, waitFor, type ApiClient } from "@mailroom/testkit/shared";
import { familyEvents } from "./events.js";
import { metricValue, sendAndWait, startFeedbackPlatform } from "./feedback-helpers.js";
import { uniqueAddress, verifiedDomain } from "./helpers.js";

type Fixture = Awaited<ReturnType<typeof startFeedbackPlatform>>;

const CERT_URL = "https://sns.eu-west-1.amazonaws.com/SimpleNotificationService-test.pem";
/** In the certificates file too: only the host rule keeps it out. */
const OTHER_REGION_CERT_URL = "https://sns.us-east-1.amazonaws.com/SimpleNotificationService-test.pem";
/** Not in the certificates file: asking for it fails, so a refusal before the fetch is told apart from one after. */
const UNKNOWN_CERT_URL = "https://sns.eu-west-1.amazonaws.com/SimpleNotificationService-unknown.pem";
const TOPIC = "arn:aws:sns:eu-west-1:123456789012:ses-feedback";
const FOREIGN_TOPIC = "arn:aws:sns:eu-west-1:210987654321:ses-feedback";

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

  /** A message signed as SNS signs it; `fields` may replace any envelope field before signing. */
  const sns = (fields: Record<string, string>, version: "1" | "2" = "2", certUrl = CERT_URL) => {
    const m: Record<string, string> = { MessageId: randomUUID(), TopicArn: TOPIC, Timestamp: new Date().toISOString(), SignatureVersion: version, SigningCertURL: certUrl, ...fields };
    m.Signature = createSign(version === "1" ? "RSA-SHA1" : "RSA-SHA256").update(canonical(m)).sign(key, "base64");
    return m;
  };
  const notification = (record: unknown) => sns({ Type: "Notification", Message: JSON.stringify(record) });
  const confirmation = (topic: string, token: string, version: "1" | "2" = "2") =>
    sns({ Type: "SubscriptionConfirmation", TopicArn: topic, Message: "You have chosen to subscribe", Token: token, SubscribeURL: `https://sns.eu-west-1.amazonaws.com/?Action=ConfirmSubscription&TopicArn=${topic}&Token=${token}` }, version);
  const sendingLog = () => readFileSync(join(f.platform.logDir, "sending-0.log"), "utf8");
  const rejected = (reason: string) => metricValue(f.platform.procs.get("sending")![0]!.opsPort, "mailroom_feedback_rejected_total", { source: "sns", reason });
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
    writeFileSync(join(dir, "certs.json"), JSON.stringify({ [CERT_URL]: made.cert, [OTHER_REGION_CERT_URL]: made.cert }));
    f = await startFeedbackPlatform({ SNS_CERTIFICATES_FILE: join(dir, "certs.json"), SES_SNS_TOPIC_ARNS: `arn:aws:sns:us-east-1:123456789012:other, ${TOPIC}` });
    const p = await f.project("ses");
    ({ api, anon } = p);
    projectId = p.id;
    domain = (await verifiedDomain(api, f.zonesFile)).domain;
  });
  afterAll(async () => {
    await f?.destroy();
    if (dir) rmSync(dir, { recursive: true, force: true });
  });

  it("confirms a subscription only to a listed topic, signed with SignatureVersion 2", async () => {
    const foreign = await post(confirmation(FOREIGN_TOPIC, "foreign-token"));
    expect(foreign.status).toBe(401);
    expect(foreign.body).toMatchObject({ code: 401, error: "UNAUTHORIZED", message: "The SNS topic is not accepted here" });
    // SHA1 signatures are refused, however genuine (the topic owner can switch the topic to version 2)
    const sha1 = await post(confirmation(TOPIC, "sha1-token", "1"));
    expect(sha1.status).toBe(401);
    expect(sha1.body.message).toMatch(/SignatureVersion 2/);

    const res = await post(confirmation(TOPIC, "good-token"));
    expect(res.status).toBe(200);
    expect(res.body).toEqual({ success: true });
    await waitFor(() => sendingLog().includes("Token=good-token"), { timeoutMs: 10_000, what: "the confirmation followed" });
    expect(sendingLog()).not.toContain("foreign-token");
    expect(sendingLog()).not.toContain("sha1-token");
  });

  it("refuses a foreign topic at once, before any certificate is fetched", async () => {
    const { emailId, mail } = await sent();
    const record = JSON.stringify({ notificationType: "Bounce", mail, bounce: { bounceType: "Permanent", timestamp: new Date().toISOString() } });
    const before = await rejected("topic");
    // the listed topic with a certificate nobody can fetch: the fetch is tried and fails (503)...
    expect((await post(sns({ Type: "Notification", Message: record }, "2", UNKNOWN_CERT_URL))).status).toBe(503);
    // ...while a foreign topic is refused before it: 401, not 503
    const foreign = await post(sns({ Type: "Notification", TopicArn: FOREIGN_TOPIC, Message: record }, "2", UNKNOWN_CERT_URL));
    expect(foreign.status).toBe(401);
    expect(foreign.body.message).toBe("The SNS topic is not accepted here");
    // a topic named like ours in another account or region is another topic
    expect((await post(sns({ Type: "Notification", TopicArn: `${TOPIC}-x`, Message: record }))).status).toBe(401);
    expect((await post(sns({ Type: "Notification", TopicArn: TOPIC.replace("eu-west-1", "eu-west-2"), Message: record }))).status).toBe(401);
    expect((await rejected("topic")) - before).toBe(3);
    expect((await api.get(`/emails/${emailId}`)).body.status).toBe("SENT");
  });

  it("refuses a message signed more than an hour ago or ahead, SHA1 signatures and certificates of another region", async () => {
    const { emailId, mail } = await sent();
    const record = { notificationType: "Bounce", mail, bounce: { bounceType: "Permanent", timestamp: new Date().toISOString() } };
    const Message = JSON.stringify(record);
    const hours = (n: number) => new Date(Date.now() + n * 3_600_000).toISOString();
    const old = await post(sns({ Type: "Notification", Message, Timestamp: hours(-1.1) }));
    expect(old.status).toBe(401);
    expect(old.body.message).toBe("The SNS message was not signed within the last hour");
    expect((await post(sns({ Type: "Notification", Message, Timestamp: hours(1.1) }))).status).toBe(401);
    expect((await post(sns({ Type: "Notification", Message, Timestamp: "yesterday" }))).status).toBe(401);
    expect((await post(sns({ Type: "Notification", Message }, "1"))).status).toBe(401);
    // a genuine SNS host, but not the topic's region
    expect((await post(sns({ Type: "Notification", Message }, "2", OTHER_REGION_CERT_URL))).status).toBe(401);
    expect((await post(sns({ Type: "Notification", Message }, "2", `${CERT_URL}?x=1`))).status).toBe(401);
    expect((await api.get(`/emails/${emailId}`)).body.status).toBe("SENT");

    // the same notification, signed now, is applied: the refusals above were about the message alone
    expect((await post(sns({ Type: "Notification", Message, Timestamp: hours(-0.9) }))).status).toBe(200);
    await events("email.bounce", emailId);
    expect((await api.get(`/emails/${emailId}`)).body.status).toBe("BOUNCED");
  });

  it("maps Delivery, Open and Click notifications to their events, matched by the SES message id", async () => {
    const { emailId, mail } = await sent();
    expect((await post(notification({ notificationType: "Delivery", mail: { messageId: mail.messageId }, delivery: { timestamp: "2030-01-01T00:00:00.000Z" } }))).status).toBe(200);
    const [delivery] = await events("email.delivery", emailId);
    expect(delivery!.data.deliveredAt).toBe("2030-01-01T00:00:00.000Z");

    expect((await post(notification({ eventType: "Open", mail: { messageId: mail.messageId }, open: { timestamp: "2030-01-01T00:01:00.000Z" } }))).status).toBe(200);
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
    expect((await post(notification(bounce))).status).toBe(200);
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
    // a later genuine notification about another email is applied: the refused ones went before it
    const other = await sent();
    expect((await post(notification({ notificationType: "Delivery", mail: other.mail, delivery: { timestamp: new Date().toISOString() } }))).status).toBe(200);
    await events("email.delivery", other.emailId);
    expect(await familyEvents(f.platform.prefix, "email", projectId, (e) => e.name === "email.bounce" && e.data.emailId === emailId, 0)).toHaveLength(0);
    expect((await api.get(`/emails/${emailId}`)).body.status).toBe("SENT");
  });
});

describe("POST /webhooks/ses without SES_SNS_TOPIC_ARNS", () => {
  it("answers 404 as for a route that does not exist, whatever the body", async () => {
    const anon = apiClient(sharedPlatform().url);
    const message = { Type: "Notification", MessageId: randomUUID(), TopicArn: TOPIC, Message: "{}", Timestamp: new Date().toISOString(), SignatureVersion: "2", Signature: "x", SigningCertURL: CERT_URL };
    for (const body of [JSON.stringify(message), "not json"]) {
      const res = await anon.post("/webhooks/ses", body, { "content-type": "text/plain; charset=UTF-8" });
      expect(res.status).toBe(404);
      expect(res.body).toMatchObject({ code: 404, error: "NOT_FOUND", message: "Route POST /webhooks/ses not found" });
    }
    const unknown = await anon.post("/webhooks/nothing", "{}", { "content-type": "text/plain; charset=UTF-8" });
    expect(unknown.body.message).toBe("Route POST /webhooks/nothing not found");
  });
});
