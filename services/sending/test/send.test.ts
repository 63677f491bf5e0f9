import { randomBytes } from "node:crypto";
import { promises as dnsPromises } from "node:dns";
import { beforeAll, describe, expect, it } from "vitest";
import { dkimVerify } from "mailauth/lib/dkim/verify.js";
import { newProject, sharedPlatform, waitFor } from "@mailroom/testkit/shared";
import { messagesTo, parsedMessage, rawMessage, signedHeaders, uniqueAddress, verifiedDomain } from "./helpers.js";
import { emailEvents } from "./events.js";

type Project = Awaited<ReturnType<typeof newProject>>;

describe("/v1/send", () => {
  let p: Project;
  let domain: string;
  beforeAll(async () => {
    p = await newProject("send");
    domain = (await verifiedDomain(p.api)).domain;
  });

  it("gives three recipients three contacts, three records and three messages", async () => {
    const to = [uniqueAddress("a"), { email: uniqueAddress("b"), name: "Bea" }, uniqueAddress("c")];
    const res = await p.api.post("/v1/send", { to, from: { email: `hello@${domain}`, name: "Hello" }, subject: "Hi {{ contact.email }}", body: "<p>x</p>" });
    expect(res.status).toBe(200);
    expect(res.body.success).toBe(true);
    expect(res.body.data.emails).toHaveLength(3);
    const addresses = to.map((t) => (typeof t === "string" ? t : t.email));
    expect(res.body.data.emails.map((e: any) => e.contact.email)).toEqual(addresses);
    expect(new Set(res.body.data.emails.map((e: any) => e.email)).size).toBe(3);

    for (const [i, sent] of res.body.data.emails.entries()) {
      const contact = await p.api.get(`/contacts/${sent.contact.id}`);
      expect(contact.body).toMatchObject({ email: addresses[i], subscribed: false });
      const [msg] = await messagesTo(addresses[i]!);
      expect(msg!.subject).toBe(`Hi ${addresses[i]}`);
      expect(msg!.messageId).toBe(`<${sent.email}@bounces.mailroom.test>`);
      expect(msg!.envelope.mailFrom).toMatch(new RegExp(`^bounces\\+${sent.email}\\.[0-9a-f]{16}@bounces\\.mailroom\\.test$`));
      expect(msg!.envelope.dsn).toMatchObject({ ret: "HDRS", envid: sent.email });
      expect(msg!.envelope.dsn.recipients[0].notify).toEqual(["SUCCESS", "FAILURE", "DELAY"]);
      const record = await waitFor(async () => {
        const r = await p.api.get(`/emails/${sent.email}`);
        return r.body.status === "DELIVERED" ? r.body : null;
      });
      expect(record).toMatchObject({ id: sent.email, contactId: sent.contact.id, to: addresses[i], from: `hello@${domain}`, sourceType: "TRANSACTIONAL", templateId: null });
      expect(record.sentAt).not.toBeNull();
    }
    const bea = await messagesTo(addresses[1]!);
    expect(bea[0]!.headers.find((h: any) => h.name === "to").value).toContain("Bea");
  });

  it("emits email.sent with the response's email id and every base field", async () => {
    const to = uniqueAddress("ev");
    const res = await p.api.post("/v1/send", { to, from: `news@${domain}`, name: "News", subject: "Events", body: "<p>e</p>" });
    const emailId = res.body.data.emails[0].email;
    const [sent] = await emailEvents(sharedPlatform().prefix, p.id, (e) => e.name === "email.sent" && e.data.emailId === emailId);
    expect(sent!.contactId).toBe(res.body.data.emails[0].contact.id);
    expect(sent!.email).toBe(to);
    expect(sent!.data).toMatchObject({
      emailId,
      messageId: `<${emailId}@bounces.mailroom.test>`,
      subject: "Events",
      from: `news@${domain}`,
      fromName: "News",
      templateId: null,
      campaignId: null,
      sourceType: "TRANSACTIONAL",
    });
    expect(typeof sent!.data.sentAt).toBe("string");
    // SMTP_DSN is off on the test platform: the relay's 250 is also the delivery.
    await emailEvents(sharedPlatform().prefix, p.id, (e) => e.name === "email.delivery" && e.data.emailId === emailId);
  });

  it("renders templates with overrides, fallbacks, one-shot data and escaping", async () => {
    const t = await p.api.post("/templates", {
      name: "Welcome",
      type: "TRANSACTIONAL",
      subject: 'Welcome {{ name ?? "friend" }}',
      body: '<p>Hi {{ name }}</p><p>{{ code }}</p>{{ link | raw }}<p>{{ plan ?? "free" }}</p>',
      from: `team@${domain}`,
      fromName: "Team",
      replyTo: "support@example.com",
    });
    expect(t.status).toBe(201);
    const evil = uniqueAddress("evil");
    const res = await p.api.post("/v1/send", {
      to: evil,
      template: t.body.id,
      data: { name: "<script>alert(1)</script>", code: { value: "123456", persistent: false }, link: '<a href="https://x.example">x</a>' },
    });
    expect(res.status).toBe(200);
    const [msg] = await messagesTo(evil);
    expect(msg!.subject).toBe("Welcome <script>alert(1)</script>");
    expect(msg!.html).toContain("<p>Hi &lt;script&gt;alert(1)&lt;/script&gt;</p>");
    expect(msg!.html).not.toContain("<script>");
    expect(msg!.html).toContain("<p>123456</p>");
    // tracking is on by default: the link goes through its click URL
    expect(msg!.html).toMatch(/<a href="http:\/\/127\.0\.0\.1:\d+\/t\/c\/[A-Za-z0-9_-]{70}">x<\/a>/);
    expect(msg!.html).toContain("<p>free</p>");
    expect(msg!.from).toContain(`team@${domain}`);
    expect(msg!.headers.find((h: any) => h.name === "reply-to").value).toBe("support@example.com");
    const contact = await p.api.get(`/contacts/${res.body.data.emails[0].contact.id}`);
    expect(contact.body.data).toMatchObject({ name: "<script>alert(1)</script>" });
    expect(contact.body.data).not.toHaveProperty("code");

    const plain = uniqueAddress("ovr");
    const over = await p.api.post("/v1/send", {
      to: plain,
      template: t.body.id,
      subject: "Override for {{ name ?? 'you' }}",
      from: { email: `other@${domain}`, name: "Other" },
      reply: "reply@example.com",
    });
    expect(over.status).toBe(200);
    const [m2] = await messagesTo(plain);
    expect(m2!.subject).toBe("Override for you");
    expect(m2!.from).toContain(`other@${domain}`);
    expect(m2!.html).toContain("<p>Hi </p>");
    expect(m2!.headers.find((h: any) => h.name === "reply-to").value).toBe("reply@example.com");
  });

  it("delivers attachments and inline images intact", async () => {
    const pdf = randomBytes(50_000);
    const png = randomBytes(2_000);
    const to = uniqueAddress("att");
    const res = await p.api.post("/v1/send", {
      to,
      from: `files@${domain}`,
      subject: "Files",
      body: '<p>logo: <img src="cid:logo@mailroom"></p>',
      attachments: [
        { filename: "report.pdf", content: pdf.toString("base64"), contentType: "application/pdf" },
        { filename: "logo.png", content: png.toString("base64"), contentType: "image/png", disposition: "inline", contentId: "logo@mailroom" },
      ],
    });
    expect(res.status).toBe(200);
    const [msg] = await messagesTo(to);
    const parsed = await parsedMessage(msg!.id);
    const report = parsed.attachments.find((a) => a.filename === "report.pdf")!;
    expect(report.contentType).toBe("application/pdf");
    expect(report.contentDisposition).toBe("attachment");
    expect(Buffer.compare(report.content, pdf)).toBe(0);
    const logo = parsed.attachments.find((a) => a.filename === "logo.png")!;
    expect(logo.contentDisposition).toBe("inline");
    expect(logo.cid).toBe("logo@mailroom");
    expect(Buffer.compare(logo.content, png)).toBe(0);
    expect(parsed.html).toContain("cid:logo@mailroom");
  });

  it("carries a 10 MB attachment (over NATS max_payload) through to the relay", async () => {
    const big = randomBytes(10 * 1024 * 1024);
    const to = uniqueAddress("big");
    const res = await p.api.post("/v1/send", {
      to,
      from: `files@${domain}`,
      subject: "Big",
      body: "<p>big</p>",
      attachments: [{ filename: "big.bin", content: big.toString("base64"), contentType: "application/octet-stream" }],
    });
    expect(res.status).toBe(200);
    const [msg] = await messagesTo(to, 1, undefined, 30_000);
    const parsed = await parsedMessage(msg!.id);
    expect(Buffer.compare(parsed.attachments[0]!.content, big)).toBe(0);
  }, 60_000);

  it("sends a text alternative beside the HTML, rendered from the same data without HTML escaping", async () => {
    const to = uniqueAddress("text");
    const res = await p.api.post("/v1/send", {
      to,
      from: `text@${domain}`,
      subject: "Both",
      body: "<p>Hi {{ name }}</p>",
      text: "Hi {{ name }}\nSee you.",
      data: { name: { value: "<Ada>", persistent: false } },
    });
    expect(res.status).toBe(200);
    const [msg] = await messagesTo(to);
    const parsed = await parsedMessage(msg!.id);
    expect(parsed.text?.trim()).toBe("Hi <Ada>\nSee you.");
    expect(parsed.html).toContain("<p>Hi &lt;Ada&gt;</p>");
  });

  it("signs with the domain's key: the signature verifies against the published record", async () => {
    const to = uniqueAddress("dkim");
    await p.api.post("/v1/send", { to, from: `signed@${domain}`, subject: "Signed", body: "<p>s</p>", headers: { "X-Campaign": "abc" } });
    const [msg] = await messagesTo(to);
    const resolver = new dnsPromises.Resolver();
    resolver.setServers([sharedPlatform().dnsAddress]);
    const result = await dkimVerify(await rawMessage(msg!.id), { resolver: (name: string, type: string) => resolver.resolve(name, type as "TXT") });
    expect(result.results).toHaveLength(1);
    expect(result.results[0]!.status.result).toBe("pass");
    expect(result.results[0]!.signingDomain).toBe(domain);
    expect(signedHeaders(msg!)).toEqual(expect.arrayContaining(["from", "to", "subject", "date", "message-id"]));
    expect(msg!.headers.find((h: any) => h.name === "x-campaign").value).toBe("abc");
  });

  it("accepts the @plunk/node style call (to as a string, subject, body)", async () => {
    const to = uniqueAddress("plunk");
    const res = await fetch(new URL("/v1/send", sharedPlatform().url), {
      method: "POST",
      headers: { "Content-Type": "application/json", Authorization: `Bearer ${p.secretKey}` },
      body: JSON.stringify({ to, subject: "Plunk", body: "<p>plunk</p>", from: `plunk@${domain}` }),
    });
    expect(res.status).toBe(200);
    const body = (await res.json()) as any;
    expect(body).toMatchObject({ success: true, data: { emails: [{ contact: { email: to } }] } });
    expect(typeof body.data.timestamp).toBe("string");
    await messagesTo(to);
  });

  it("lists email records by contact", async () => {
    const to = uniqueAddress("list");
    const first = await p.api.post("/v1/send", { to, from: `l@${domain}`, subject: "1", body: "1" });
    await p.api.post("/v1/send", { to, from: `l@${domain}`, subject: "2", body: "2" });
    const contactId = first.body.data.emails[0].contact.id;
    const page1 = await p.api.get(`/emails?contactId=${contactId}&limit=1`);
    expect(page1.body.data).toHaveLength(1);
    expect(page1.body.data[0].subject).toBe("2");
    expect(page1.body.hasMore).toBe(true);
    const page2 = await p.api.get(`/emails?contactId=${contactId}&limit=1&cursor=${page1.body.cursor}`);
    expect(page2.body.data[0].subject).toBe("1");
    expect(page2.body).toMatchObject({ hasMore: false, cursor: null });
    const other = await newProject("send-other");
    expect((await other.api.get(`/emails/${page1.body.data[0].id}`)).status).toBe(404);
    expect((await other.api.get(`/emails?contactId=${contactId}`)).body.data).toEqual([]);
  });

  it("gives an address repeated in another case one contact and an email per mention", async () => {
    const a = uniqueAddress("twice");
    const b = uniqueAddress("once");
    const res = await p.api.post("/v1/send", { to: [a, b, a.toUpperCase()], from: `t@${domain}`, subject: "Hi", body: "<p>x</p>" });
    expect(res.status).toBe(200);
    const [first, other, again] = res.body.data.emails;
    expect(again.contact).toEqual(first.contact);
    expect(other.contact.id).not.toBe(first.contact.id);
    expect(new Set(res.body.data.emails.map((e: any) => e.email)).size).toBe(3);
    expect(await messagesTo(a, 2)).toHaveLength(2);
    expect((await p.api.get(`/emails?contactId=${first.contact.id}`)).body.data).toHaveLength(2);
  });

  it("queues none of the recipients when one of them cannot be rendered", async () => {
    const big = uniqueAddress("huge");
    await p.api.post("/contacts", { email: big, data: { n: 100_000_000 } });
    const fine = uniqueAddress("fine");
    const res = await p.api.post("/v1/send", {
      to: [fine, big],
      from: `r@${domain}`,
      subject: "Loop",
      body: "{% for i in (1..contact.data.n) %}.{% endfor %}done",
    });
    expect(res.status).toBe(400);
    expect(res.body).toMatchObject({ error: "VALIDATION_ERROR", message: "The template could not be rendered" });
    const { body: contact } = await p.api.get(`/contacts?search=${encodeURIComponent(fine)}`);
    for (const c of contact.data) expect((await p.api.get(`/emails?contactId=${c.id}`)).body.data).toEqual([]);
    // the next send to the same contact goes out: nothing of the refused one is left behind it
    const ok = await p.api.post("/v1/send", { to: fine, from: `r@${domain}`, subject: "After", body: "ok" });
    const [msg] = await messagesTo(fine);
    expect(msg!.subject).toBe("After");
    expect((await p.api.get(`/emails?contactId=${ok.body.data.emails[0].contact.id}`)).body.data).toHaveLength(1);
  });
});
