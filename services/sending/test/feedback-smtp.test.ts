import { generateKeyPairSync, randomUUID } from "node:crypto";
import nodemailer from "nodemailer";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { Drain, addZones, waitFor, type ApiClient } from "@mailroom/testkit";
import { familyEvents, settledEvents } from "./events.js";
import { RPD, arf, deliver, dsn, metricValue, sendAndWait, startFeedbackPlatform } from "./feedback-helpers.js";
import { uniqueAddress, uniqueDomain, verifiedDomain } from "./helpers.js";

type Fixture = Awaited<ReturnType<typeof startFeedbackPlatform>>;
const MB = 1024 * 1024;

describe("delivery reports, complaints and inbound mail over SMTP", () => {
  let f: Fixture;
  let p: Awaited<ReturnType<Fixture["project"]>>;
  let api: ApiClient;
  let domain: string;
  let drain: Drain;
  const events = (name: string, emailId: string, count = 1) =>
    familyEvents(f.platform.prefix, "email", p.id, (e) => e.name === name && e.data.emailId === emailId, count);
  /** A sent email with the envelope sender the relay saw: where its reports go. */
  const send = async (to = uniqueAddress("fb")) => {
    const r = await sendAndWait(api, { from: `news@${domain}`, to });
    return { ...r, to, verp: (await f.relay.to(to)).mailFrom };
  };
  const rejected = (source: string, reason: string) =>
    metricValue(f.platform.procs.get("sending")![0]!.opsPort, "mailroom_feedback_rejected_total", { source, reason });
  const subscribedSend = async () => {
    const to = uniqueAddress("fb");
    await api.post("/contacts", { email: to, subscribed: true });
    return send(to);
  };

  beforeAll(async () => {
    f = await startFeedbackPlatform({ INBOUND_MAX_BYTES: String(16 * MB), INBOUND_KEEP_BYTES: String(1 * MB) });
    p = await f.project();
    api = p.api;
    domain = (await verifiedDomain(api, f.zonesFile)).domain;
    drain = await Drain.open(f.platform.env);
  });
  afterAll(async () => {
    await drain?.close();
    await f?.destroy();
  });

  it("sends with the signed VERP envelope sender and waits for the DSN before calling it delivered", async () => {
    const { emailId, to, record, verp } = await send();
    expect(record.status).toBe("SENT");
    expect(verp).toMatch(new RegExp(`^bounces\\+${emailId}\\.[0-9a-f]{16}@${RPD.replace(/\./g, "\\.")}$`));

    await deliver(f.inboundPort, [verp], dsn({ emailId, verp, to, action: "delivered", status: "2.0.0" }));
    const [e] = await events("email.delivery", emailId);
    const after = (await api.get(`/emails/${emailId}`)).body;
    expect(after.status).toBe("DELIVERED");
    expect(e).toMatchObject({
      email: to,
      contactId: record.contactId,
      data: { emailId, deliveredAt: after.deliveredAt, subject: "Hello", from: `news@${domain}`, fromName: "", messageId: record.messageId, templateId: null, campaignId: null, sourceType: "TRANSACTIONAL" },
    });
  });

  it("turns a 5.1.1 DSN into a permanent bounce that unsubscribes and suppresses transactional mail until resubscribed", async () => {
    const { emailId, contactId, to, verp } = await subscribedSend();
    await deliver(f.inboundPort, [verp], dsn({ emailId, verp, to, action: "failed", status: "5.1.1" }));
    const [e] = await events("email.bounce", emailId);
    const record = (await api.get(`/emails/${emailId}`)).body;
    expect(record.status).toBe("BOUNCED");
    expect(e!.data).toMatchObject({ bounceType: "Permanent", transientBounce: false, bouncedAt: record.bouncedAt, emailId });
    await familyEvents(f.platform.prefix, "contact", p.id, (c) => c.name === "contact.unsubscribed" && c.contactId === contactId && c.data.reason === "bounce");
    expect((await api.get(`/contacts/${contactId}`)).body.subscribed).toBe(false);

    const blocked = await api.post("/v1/send", { to, from: `news@${domain}`, subject: "Again", body: "<p>x</p>" });
    expect(blocked.status).toBe(200);
    const blockedId = blocked.body.data.emails[0].email;
    expect((await api.get(`/emails/${blockedId}`)).body.status).toBe("FAILED");

    expect((await api.patch(`/contacts/${contactId}`, { subscribed: true })).status).toBe(200);
    // the contact.subscribed event lifts the suppression
    await waitFor(async () => ((await send(to)).record.status === "SENT" ? true : null), { timeoutMs: 15_000, intervalMs: 500, what: "a send after resubscription" });
    expect(f.relay.messages.filter((m) => m.rcptTo.includes(to))).toHaveLength(2);
    expect(f.relay.messages.some((m) => m.mailFrom.startsWith(`bounces+${blockedId}.`))).toBe(false);
  });

  it("turns a delay or a 4.x.x DSN into a transient bounce that leaves the contact subscribed", async () => {
    const { emailId, contactId, to, verp } = await subscribedSend();
    await deliver(f.inboundPort, [verp], dsn({ emailId, verp, to, action: "delayed", status: "4.4.7" }));
    await deliver(f.inboundPort, [verp], dsn({ emailId, verp, to, action: "failed", status: "4.2.2" }));
    const found = await events("email.bounce", emailId, 2);
    for (const e of found) {
      expect(e.data).toMatchObject({ bounceType: "Transient", transientBounce: true });
      expect(e.data).not.toHaveProperty("bouncedAt");
    }
    expect((await api.get(`/emails/${emailId}`)).body).toMatchObject({ status: "SENT", bouncedAt: null });
    expect((await api.get(`/contacts/${contactId}`)).body.subscribed).toBe(true);
  });

  it("turns an ARF report into a complaint that unsubscribes the contact", async () => {
    const { emailId, contactId, to, verp } = await subscribedSend();
    await deliver(f.inboundPort, [`fbl@${RPD}`], arf({ emailId, to, mailFrom: verp }));
    const [e] = await events("email.complaint", emailId);
    const record = (await api.get(`/emails/${emailId}`)).body;
    expect(record.status).toBe("COMPLAINED");
    expect(e!.data).toMatchObject({ complainedAt: record.complainedAt, emailId });
    await familyEvents(f.platform.prefix, "contact", p.id, (c) => c.name === "contact.unsubscribed" && c.contactId === contactId && c.data.reason === "complaint");
  });

  it("ignores reports for unknown or forged email ids and applies a repeated report once", async () => {
    const { emailId, contactId, to, verp } = await subscribedSend();
    const unknown = randomUUID();
    const unknownVerp = `bounces+${unknown}.${"0".repeat(16)}@${RPD}`;
    await deliver(f.inboundPort, [unknownVerp], dsn({ emailId: unknown, verp: unknownVerp, to, action: "failed", status: "5.1.1" }));
    // the VERP address names our email but the report is about another message
    await deliver(f.inboundPort, [verp], dsn({ emailId, verp, to, action: "failed", status: "5.1.1", envelopeId: unknown, messageId: `<${unknown}@${RPD}>` }));
    const report = dsn({ emailId, verp, to, action: "delivered", status: "2.0.0" });
    await deliver(f.inboundPort, [verp], report);
    await deliver(f.inboundPort, [verp], report);
    await events("email.delivery", emailId);
    expect(await settledEvents(drain, f.platform.prefix, "email", p.id, (e) => e.data.emailId === emailId && e.name === "email.delivery")).toHaveLength(1);
    expect(await settledEvents(drain, f.platform.prefix, "email", p.id, (e) => e.name === "email.bounce" && (e.data.emailId === emailId || e.data.emailId === unknown))).toHaveLength(0);
    expect((await api.get(`/emails/${emailId}`)).body.status).toBe("DELIVERED");
    expect((await api.get(`/contacts/${contactId}`)).body.subscribed).toBe(true);
  });

  it("changes nothing for a DSN or ARF report whose VERP tag is missing or wrong, and counts it", async () => {
    const victim = await subscribedSend();
    const other = await subscribedSend();
    const { emailId, to } = victim;
    const unsigned = `bounces+${emailId}@${RPD}`;
    const wrongTag = `bounces+${emailId}.${"0".repeat(16)}@${RPD}`;
    // a genuine tag, but of another email: the tag is bound to the id it signs
    const swapped = `bounces+${emailId}.${other.verp.split("@")[0]!.split(".").pop()}@${RPD}`;
    const before = {
      dsnUnsigned: await rejected("dsn", "unsigned"),
      dsnBadTag: await rejected("dsn", "bad_tag"),
      arfUnsigned: await rejected("arf", "unsigned"),
      arfBadTag: await rejected("arf", "bad_tag"),
    };

    for (const address of [unsigned, wrongTag, swapped]) {
      // every DSN here is otherwise well-formed: ENVID and the returned Message-ID name the victim
      await deliver(f.inboundPort, [address], dsn({ emailId, verp: address, to, action: "failed", status: "5.1.1" }));
      await deliver(f.inboundPort, [`fbl@${RPD}`], arf({ emailId, to, mailFrom: address }));
    }
    // a complaint that names the email only by its returned Message-ID, which every recipient can read
    await deliver(f.inboundPort, [`fbl@${RPD}`], arf({ emailId, to, mailFrom: null }));
    // a genuine Original-Mail-From does not carry a forged Return-Path beside it
    await deliver(f.inboundPort, [`fbl@${RPD}`], arf({ emailId, to, mailFrom: victim.verp, returnPath: wrongTag }));

    // A later genuine DSN, for another email, is processed: the forged ones went before it.
    await deliver(f.inboundPort, [other.verp], dsn({ emailId: other.emailId, verp: other.verp, to: other.to, action: "failed", status: "5.1.1" }));
    await events("email.bounce", other.emailId);
    expect((await api.get(`/emails/${other.emailId}`)).body.status).toBe("BOUNCED");

    const about = await familyEvents(f.platform.prefix, "email", p.id, (e) => e.data.emailId === emailId && (e.name === "email.bounce" || e.name === "email.complaint"), 0);
    expect(about).toHaveLength(0);
    expect((await api.get(`/emails/${emailId}`)).body).toMatchObject({ status: "SENT", bouncedAt: null, complainedAt: null });
    expect((await api.get(`/contacts/${victim.contactId}`)).body.subscribed).toBe(true);
    // and the victim can still be mailed: nothing suppressed the address
    expect((await send(to)).record.status).toBe("SENT");

    expect((await rejected("dsn", "unsigned")) - before.dsnUnsigned).toBe(1);
    expect((await rejected("dsn", "bad_tag")) - before.dsnBadTag).toBe(2);
    expect((await rejected("arf", "unsigned")) - before.arfUnsigned).toBe(2);
    expect((await rejected("arf", "bad_tag")) - before.arfBadTag).toBe(3);
  });

  it("turns mail to a verified domain into email.received with sanitized HTML and SPF, DKIM and DMARC verdicts", async () => {
    const sender = uniqueDomain("sender");
    const { privateKey, publicKey } = generateKeyPairSync("rsa", { modulusLength: 1024 });
    const spki = publicKey.export({ type: "spki", format: "der" }).toString("base64");
    addZones(f.zonesFile, {
      [sender]: { TXT: ["v=spf1 ip4:127.0.0.1 -all"] },
      [`s1._domainkey.${sender}`]: { TXT: [`v=DKIM1; k=rsa; p=${spki}`] },
      [`_dmarc.${sender}`]: { TXT: ["v=DMARC1; p=reject"] },
    });
    const transport = nodemailer.createTransport({ host: "127.0.0.1", port: f.inboundPort, ignoreTLS: true, name: "mx.sender.test" });
    const started = Date.now();
    await transport.sendMail({
      from: `Alice Example <alice@${sender}>`,
      to: `support@${domain}`,
      subject: "Question",
      html: `<p>Hi <b>there</b></p><script>alert(1)</script><img src="https://x.example/a.png" onerror="alert(2)"><a href="javascript:alert(3)">x</a>`,
      dkim: { domainName: sender, keySelector: "s1", privateKey: privateKey.export({ type: "pkcs8", format: "pem" }).toString() },
    });
    transport.close();
    const [e] = await familyEvents(f.platform.prefix, "email", p.id, (x) => x.name === "email.received" && x.data.to === `support@${domain}`);
    expect(e!.data).toMatchObject({
      from: `alice@${sender}`,
      fromHeader: `Alice Example <alice@${sender}>`,
      subject: "Question",
      recipients: [`support@${domain}`],
      hasContent: true,
      spfVerdict: "PASS",
      dkimVerdict: "PASS",
      dmarcVerdict: "PASS",
      spamVerdict: "PROCESSING_FAILED",
      virusVerdict: "PROCESSING_FAILED",
      truncated: false,
    });
    const body = e!.data.body as string;
    expect(body).toContain("<p>Hi <b>there</b></p>");
    expect(body).not.toContain("<script");
    expect(body).not.toContain("onerror");
    expect(body).not.toContain("javascript:");
    expect(e!.data.messageId).toMatch(/^<.+>$/);
    expect(Date.parse(e!.data.timestamp as string)).toBeGreaterThanOrEqual(started - 1000);
    expect(e!.data.processingTimeMillis).toBeGreaterThanOrEqual(0);
  });

  it("refuses mail for a domain no project verified at RCPT time", async () => {
    const err = await deliver(f.inboundPort, [`someone@${uniqueDomain("nobody")}`], "Subject: hi\r\n\r\nhi\r\n", "x@example.com").catch((e) => e);
    expect(err).toBeInstanceOf(Error);
    expect(err.responseCode).toBe(550);
  });

  it("delivers a 12 MB message with a 100 KB subject as a truncated email.received, bounded in bytes", async () => {
    const to = `big-${randomUUID().slice(0, 8)}@${domain}`;
    const subject = "Größe ".repeat(15_000); // 105,000 bytes, 90,000 characters
    // 100,000 characters but 300,000 bytes: a bound in characters would let it through whole
    const html = `<p>${"€".repeat(100_000)}</p><script>alert(1)</script>`;
    const attachment = `${"QUJD".repeat(19)}\r\n`.repeat(Math.ceil((12 * MB) / 78));
    const raw = Buffer.from(
      [
        `From: Big Sender <big@sender.example>`, `To: ${to}`, `Subject: ${subject}`, `Message-ID: <big-${randomUUID()}@sender.example>`,
        `X-Long: ${"h".repeat(200 * 1024)}`, `MIME-Version: 1.0`, `Content-Type: multipart/mixed; boundary="b"`, ``,
        `--b`, `Content-Type: text/html; charset=utf-8`, `Content-Transfer-Encoding: 8bit`, ``, html, ``,
        `--b`, `Content-Type: application/octet-stream; name="big.bin"`, `Content-Transfer-Encoding: base64`, ``, attachment,
        `--b--`, ``,
      ].join("\r\n"),
    );
    expect(raw.length).toBeGreaterThan(12 * MB);
    const info = await deliver(f.inboundPort, [to], raw, "big@sender.example");
    expect(info.response).toMatch(/^250/);

    const [e] = await familyEvents(f.platform.prefix, "email", p.id, (x) => x.name === "email.received" && x.data.to === to);
    const data = e!.data as Record<string, string | boolean>;
    expect(data).toMatchObject({ truncated: true, from: "big@sender.example", fromHeader: "Big Sender <big@sender.example>", hasContent: true, dkimVerdict: "PROCESSING_FAILED" });
    const subjectBytes = Buffer.byteLength(data.subject as string);
    expect(subjectBytes).toBeLessThanOrEqual(2048);
    expect(subjectBytes).toBeGreaterThan(1024);
    expect(subject.startsWith(data.subject as string)).toBe(true);
    const body = data.body as string;
    expect(Buffer.byteLength(body)).toBeLessThanOrEqual(256 * 1024);
    expect(body.startsWith("<p>€€€")).toBe(true);
    expect(body).not.toContain("\uFFFD");
    expect(body).not.toContain("<script");
  });

  it("refuses a message over the size limit", async () => {
    const huge = `Subject: big\r\n\r\n${`${"y".repeat(998)}\r\n`.repeat(17 * 1024)}`;
    const err = await deliver(f.inboundPort, [`support@${domain}`], huge, "x@example.com").catch((e) => e);
    expect(err.responseCode).toBe(552);
  });
});
