import { randomBytes } from "node:crypto";
import { promises as dnsPromises } from "node:dns";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import nodemailer from "nodemailer";
import { simpleParser } from "mailparser";
import { dkimVerify } from "mailauth/lib/dkim/verify.js";
import { wireNames } from "@mailroom/contracts";
import { Drain } from "@mailroom/testkit";
import { dialogue, plain, startRelayPlatform, uniqueAddress, verifiedDomain } from "./smtp-relay-helpers.js";

type Fixture = Awaited<ReturnType<typeof startRelayPlatform>>;
type Project = Awaited<ReturnType<Fixture["project"]>>;

const MB = 1024 * 1024;
/** A 1×1 PNG: the inline image. */
const PNG = Buffer.from("iVBORw0KGgoAAAANSUhEUgAAAAEAAAABCAYAAAAfFcSJAAAADUlEQVR42mNk+M9QDwADhgGAWjR9awAAAABJRU5ErkJggg==", "base64");

describe("SMTP relay (decisions.md §17)", () => {
  let f: Fixture;
  let p: Project;
  let domain: string;
  let drain: Drain;

  /** nodemailer as a mail client would be set up: STARTTLS on the submission port, or implicit TLS. */
  const transport = (kind: "starttls" | "implicit", pass = p.secretKey) =>
    nodemailer.createTransport({
      host: "127.0.0.1",
      port: kind === "starttls" ? f.port : f.tlsPort,
      secure: kind === "implicit",
      requireTLS: kind === "starttls",
      auth: { user: "anything", pass },
      tls: { ca: [f.cert], servername: "localhost" },
    });

  /** One email to `to`, in the sink and in /emails, once every delivery job queued before now has been handled: a second would be there. */
  const expectOneEmail = async (to: string) => {
    await f.messagesTo(to);
    const { sendingTransactional, sendingDelivery } = wireNames(f.platform.prefix).consumers;
    await drain.through([sendingTransactional, sendingDelivery]);
    expect(await f.sink(to)).toHaveLength(1);
    expect((await p.api.get(`/emails?to=${encodeURIComponent(to)}`)).body.data).toHaveLength(1);
  };

  beforeAll(async () => {
    f = await startRelayPlatform();
    p = await f.project();
    domain = await verifiedDomain(p.api, f.zonesFile);
    drain = await Drain.open(f.platform.env);
  }, 120_000);
  afterAll(async () => {
    await drain?.close();
    await f?.destroy();
  });

  for (const kind of ["starttls", "implicit"] as const) {
    it(`delivers a message with an attachment and an inline image, intact and DKIM-signed (${kind})`, async () => {
      const to = uniqueAddress(kind);
      const report = randomBytes(64 * 1024);
      const mail = transport(kind);
      const info = await mail.sendMail({
        from: { name: "Relay Test", address: `app@${domain}` },
        to,
        subject: `Report {{ not liquid }} (${kind})`,
        text: "The report is attached. {{ plain too }}",
        html: '<p>The report is attached. {{ stays as written }}</p><img src="cid:logo@relay.test">',
        headers: { "X-Campaign-Ref": "q4-report" },
        attachments: [
          { filename: "report.bin", content: report, contentType: "application/octet-stream" },
          { filename: "logo.png", content: PNG, contentType: "image/png", cid: "logo@relay.test" },
        ],
      });
      mail.close();
      expect(info.accepted).toEqual([to]);
      expect(info.response).toMatch(/^250 2\.0\.0 Queued: \S+$/);
      const emailId = info.response.split(" ").pop()!;

      const [msg] = await f.messagesTo(to);
      const raw = await f.raw(msg!.id);
      const parsed = await simpleParser(raw, { skipImageLinks: true });
      expect(parsed.subject).toBe(`Report {{ not liquid }} (${kind})`);
      expect(parsed.text?.trim()).toBe("The report is attached. {{ plain too }}");
      // not a Liquid template: the braces reach the reader as written (a character reference a mail
      // client shows as "{", so Liquid never sees a tag)
      expect(parsed.html).toContain("&#123;{ stays as written }}");
      expect(parsed.html).toContain('src="cid:logo@relay.test"');
      expect(parsed.headers.get("x-campaign-ref")).toBe("q4-report");
      const file = parsed.attachments.find((a) => a.filename === "report.bin")!;
      expect(Buffer.compare(file.content, report)).toBe(0);
      const logo = parsed.attachments.find((a) => a.filename === "logo.png")!;
      expect(Buffer.compare(logo.content, PNG)).toBe(0);
      expect(logo.cid).toBe("logo@relay.test");
      expect(logo.contentDisposition).toBe("inline");

      const resolver = new dnsPromises.Resolver();
      resolver.setServers([f.dnsAddress]);
      const dkim = await dkimVerify(raw, { resolver: (name: string, type: string) => resolver.resolve(name, type as "TXT") });
      expect(dkim.results.map((r: any) => [r.status.result, r.signingDomain])).toEqual([["pass", domain]]);

      // an email like every other: its record, and listed by GET /emails (through the gateway)
      const listed = await p.api.get(`/emails?to=${encodeURIComponent(to)}`);
      expect(listed.status).toBe(200);
      expect(listed.body.data.map((e: any) => e.id)).toEqual([emailId]);
      expect(listed.body.data[0]).toMatchObject({ to, from: `app@${domain}`, sourceType: "TRANSACTIONAL" });
    }, 60_000);
  }

  it("gives each envelope recipient an email and a contact, as /v1/send's array does", async () => {
    const [a, b] = [uniqueAddress("a"), uniqueAddress("b")];
    const mail = transport("implicit");
    const info = await mail.sendMail({ from: `app@${domain}`, to: a, bcc: b, subject: "Two", html: "<p>two</p>" });
    mail.close();
    expect(info.accepted.sort()).toEqual([a, b].sort());
    const [ma] = await f.messagesTo(a);
    const [mb] = await f.messagesTo(b);
    expect(ma!.to).toEqual([a]);
    expect(mb!.to).toEqual([b]);
    const contacts = await p.api.get(`/contacts?limit=100`);
    const emails = contacts.body.data.map((c: any) => c.email);
    expect(emails).toEqual(expect.arrayContaining([a, b]));
  }, 30_000);

  it("refuses a public key and a wrong key with 535", async () => {
    for (const pass of [p.publicKey, `sk_${randomBytes(32).toString("hex")}`, "not a key"]) {
      const err = await transport("starttls", pass)
        .verify()
        .then(() => null, (e: any) => e);
      expect(err?.responseCode).toBe(535);
    }
  });

  it("takes AUTH LOGIN as well as PLAIN, with any username", async () => {
    const s = await dialogue(f.tlsPort, { tls: true });
    try {
      expect(await s.say("EHLO client.test")).toMatch(/AUTH PLAIN LOGIN/);
      expect(await s.say("AUTH LOGIN")).toMatch(/^334 /);
      expect(await s.say(Buffer.from("whoever").toString("base64"))).toMatch(/^334 /);
      expect(await s.say(Buffer.from(p.secretKey).toString("base64"))).toMatch(/^235 /);
    } finally {
      s.close();
    }
  });

  it("refuses AUTH before STARTTLS on the submission port (538)", async () => {
    const s = await dialogue(f.port);
    try {
      expect(s.greeting).toMatch(/^220 /);
      const ehlo = await s.say("EHLO client.test");
      expect(ehlo).toContain("STARTTLS");
      expect(await s.say(`AUTH PLAIN ${plain("u", p.secretKey)}`)).toMatch(/^538 /);
      expect(await s.say(`MAIL FROM:<app@${domain}>`)).toMatch(/^530 /);
    } finally {
      s.close();
    }
  });

  it("refuses a sender on a domain the project has not verified (550 5.7.1)", async () => {
    const mail = transport("implicit");
    const err = await mail.sendMail({ from: "app@not-verified.relay.test", to: uniqueAddress(), subject: "x", html: "<p>x</p>" }).then(
      () => null,
      (e: any) => e,
    );
    mail.close();
    expect(err?.responseCode).toBe(550);
    expect(err?.response).toContain("5.7.1");
  });

  it("refuses the 51st recipient of a message with 452 4.5.3", async () => {
    const s = await dialogue(f.tlsPort, { tls: true });
    try {
      await s.say("EHLO client.test");
      expect(await s.say(`AUTH PLAIN ${plain("u", p.secretKey)}`)).toMatch(/^235 /);
      expect(await s.say(`MAIL FROM:<app@${domain}>`)).toMatch(/^250 /);
      for (let i = 0; i < 50; i++) expect(await s.say(`RCPT TO:<${uniqueAddress("many")}>`)).toMatch(/^250 /);
      expect(await s.say(`RCPT TO:<${uniqueAddress("many")}>`)).toMatch(/^452 4\.5\.3 /);
      expect(await s.say("RSET")).toMatch(/^250 /);
    } finally {
      s.close();
    }
  });

  it("advertises SIZE 25 MB and refuses a 30 MB message with 552, sending nothing", async () => {
    const s = await dialogue(f.tlsPort, { tls: true });
    expect(await s.say("EHLO client.test")).toContain(`SIZE ${25 * MB}`);
    s.close();
    const to = uniqueAddress("big");
    const mail = transport("implicit");
    const err = await mail
      .sendMail({ from: `app@${domain}`, to, subject: "Too big", html: "<p>big</p>", attachments: [{ filename: "big.bin", content: randomBytes(22 * MB) }] })
      .then(() => null, (e: any) => e);
    mail.close();
    expect(err?.responseCode).toBe(552);
    expect(err?.response).toContain("5.3.4");
    expect(await f.sink(to)).toEqual([]);
  }, 60_000);

  it("sends a 20 MB message with attachments (past NATS max_payload, through the blob store)", async () => {
    const to = uniqueAddress("large");
    const files = [randomBytes(8 * MB), randomBytes(7 * MB)];
    const mail = transport("implicit");
    const info = await mail.sendMail({
      from: `app@${domain}`,
      to,
      subject: "Large",
      html: "<p>large</p>",
      attachments: files.map((content, i) => ({ filename: `part-${i}.bin`, content })),
    });
    mail.close();
    expect(info.accepted).toEqual([to]);
    const [msg] = await f.messagesTo(to, 1, 45_000);
    expect(msg!.size).toBeGreaterThan(20 * MB);
    const parsed = await simpleParser(await f.raw(msg!.id));
    expect(parsed.attachments.map((a) => Buffer.compare(a.content, files[parsed.attachments.indexOf(a)]!))).toEqual([0, 0]);
  }, 90_000);

  it("sends a message resubmitted with the same Message-ID once", async () => {
    const to = uniqueAddress("dup");
    const message = { from: `app@${domain}`, to, subject: "Once", html: "<p>once</p>", messageId: `<${randomBytes(8).toString("hex")}@client.test>` };
    const mail = transport("implicit");
    const first = await mail.sendMail(message);
    const second = await mail.sendMail(message);
    mail.close();
    expect(first.response).toMatch(/^250 2\.0\.0 Queued: /);
    const id = first.response.split(" ").pop();
    expect(second.response).toBe(`250 2.0.0 Already sent: ${id}`);

    await expectOneEmail(to);
  }, 30_000);

  it("sends a message submitted over two connections at once once, and answers both with its email", async () => {
    const to = uniqueAddress("twins");
    const message = { from: `app@${domain}`, to, subject: "Twins", html: "<p>twins</p>", messageId: `<${randomBytes(8).toString("hex")}@client.test>` };
    const [a, b] = [transport("starttls"), transport("implicit")];
    const answers = await Promise.all([a.sendMail(message), b.sendMail(message)]);
    a.close();
    b.close();
    const ids = answers.map((r) => r.response.split(" ").pop());
    expect(ids[0]).toBe(ids[1]);
    expect(answers.map((r) => r.response.split(":")[0]).sort()).toEqual(["250 2.0.0 Already sent", "250 2.0.0 Queued"]);

    await expectOneEmail(to);
  }, 30_000);

  it("keeps each project's Message-IDs apart: another project's message with the same Message-ID is sent", async () => {
    const other = await f.project("relay-other");
    const otherDomain = await verifiedDomain(other.api, f.zonesFile);
    const to = uniqueAddress("apart");
    const messageId = `<${randomBytes(8).toString("hex")}@client.test>`;
    const mine = transport("implicit");
    const theirs = transport("implicit", other.secretKey);
    const first = await mine.sendMail({ from: `app@${domain}`, to, subject: "Mine", text: "mine", messageId });
    const second = await theirs.sendMail({ from: `app@${otherDomain}`, to, subject: "Theirs", text: "theirs", messageId });
    mine.close();
    theirs.close();
    expect(first.response).toMatch(/^250 2\.0\.0 Queued: /);
    expect(second.response).toMatch(/^250 2\.0\.0 Queued: /);
    expect(second.response).not.toBe(first.response);
    expect((await f.messagesTo(to, 2)).length).toBe(2);
  }, 30_000);

  it("counts each recipient against the key's rate limit (451 4.7.1 past it)", async () => {
    const limited = JSON.parse(await f.platform.cli(["keys", "create", "--project", p.id, "--kind", "secret", "--rate-limit", "1", "--json"]));
    const s = await dialogue(f.tlsPort, { tls: true });
    try {
      await s.say("EHLO client.test");
      expect(await s.say(`AUTH PLAIN ${plain("u", limited.key)}`)).toMatch(/^235 /);
      expect(await s.say(`MAIL FROM:<app@${domain}>`)).toMatch(/^250 /);
      // a rate of 1 a second has a burst of 2
      const replies: string[] = [];
      for (let i = 0; i < 4; i++) replies.push(await s.say(`RCPT TO:<${uniqueAddress("rl")}>`));
      expect(replies.filter((r) => r.startsWith("250 ")).length).toBeLessThanOrEqual(3);
      expect(replies.at(-1)).toMatch(/^451 4\.7\.1 /);
    } finally {
      s.close();
    }
  });
});
