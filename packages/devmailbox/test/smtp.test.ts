import { afterAll, beforeAll, beforeEach, describe, expect, it } from "vitest";
import { startMailbox, type Mailbox } from "../src/index.js";
import { sample, transportFor } from "./helpers.js";

let mailbox: Mailbox;
beforeAll(async () => {
  mailbox = await startMailbox({ maxMessages: 3 });
});
afterAll(() => mailbox.stop());
beforeEach(() => mailbox.clear());

describe("devmailbox SMTP", () => {
  it("listens on random loopback ports and reports its URLs", () => {
    expect(mailbox.smtpPort).toBeGreaterThan(0);
    expect(mailbox.httpPort).toBeGreaterThan(0);
    expect(mailbox.smtpPort).not.toBe(mailbox.httpPort);
    expect(mailbox.smtpUrl).toBe(`smtp://127.0.0.1:${mailbox.smtpPort}`);
    expect(mailbox.webUrl).toBe(`http://127.0.0.1:${mailbox.httpPort}`);
  });

  it("stores and parses an accepted message", async () => {
    await transportFor(mailbox).sendMail({ ...sample, cc: "cc@example.com", messageId: "<m1@example.com>", headers: { "X-Test": "yes" } });
    const [message] = mailbox.messages();
    expect(message).toMatchObject({
      subject: "Hello",
      to: ["rcpt@example.com"],
      from: "sender@example.com",
      messageId: "<m1@example.com>",
      html: "<p>html body</p>",
      text: "plain body",
      envelope: { mailFrom: "sender@example.com", rcptTo: ["rcpt@example.com", "cc@example.com"] },
    });
    expect(message?.id).toMatch(/^[0-9a-f-]{36}$/);
    expect(Date.parse(message?.receivedAt ?? "")).not.toBeNaN();
    expect(message?.raw.toString()).toContain("Subject: Hello");
    expect(message?.headers).toContainEqual({ name: "x-test", value: "yes" });
  });

  it("keeps UTF-8 subjects and addresses (8BITMIME, SMTPUTF8)", async () => {
    await transportFor(mailbox).sendMail({ ...sample, to: "josé@exämple.com", subject: "Grüße 🎉" });
    expect(mailbox.messages()[0]).toMatchObject({ subject: "Grüße 🎉", envelope: { rcptTo: ["josé@exämple.com"] } });
  });

  it("captures the DSN parameters of the envelope", async () => {
    await transportFor(mailbox).sendMail({
      ...sample,
      dsn: { id: "email-42", return: "headers", notify: ["success", "failure", "delay"], recipient: "rcpt@example.com" },
    });
    expect(mailbox.messages()[0]?.envelope.dsn).toEqual({
      ret: "HDRS",
      envid: "email-42",
      recipients: [{ address: "rcpt@example.com", notify: ["SUCCESS", "FAILURE", "DELAY"], orcpt: "rfc822;rcpt@example.com" }],
    });
  });

  it("accepts any credentials so relay URLs with a user work", async () => {
    await transportFor(mailbox, { user: "anyone", pass: "whatever" }).sendMail(sample);
    expect(mailbox.messages()).toHaveLength(1);
  });

  it("answers injected 4xx RCPT failures, then accepts again", async () => {
    mailbox.failNext(1, 451, "4.3.0 Try again later");
    expect(mailbox.failuresLeft()).toBe(1);
    const transport = transportFor(mailbox);
    await expect(transport.sendMail(sample)).rejects.toMatchObject({ responseCode: 451 });
    expect(mailbox.failuresLeft()).toBe(0);
    await transport.sendMail(sample);
    expect(mailbox.messages()).toHaveLength(1);
  });

  it("answers injected 5xx DATA failures without storing the message", async () => {
    mailbox.failNext(2, 550, "5.1.1 No such user", "DATA");
    expect([mailbox.failuresLeft("DATA"), mailbox.failuresLeft("RCPT")]).toEqual([2, 0]);
    const transport = transportFor(mailbox);
    for (let i = 0; i < 2; i++) {
      const error = await transport.sendMail(sample).catch((e: unknown) => e);
      expect(error).toMatchObject({ responseCode: 550, response: expect.stringContaining("No such user") });
    }
    await transport.sendMail(sample);
    expect(mailbox.messages()).toHaveLength(1);
  });

  it("delays the DATA answer when asked to", async () => {
    mailbox.setDelay(300);
    const started = Date.now();
    await transportFor(mailbox).sendMail(sample);
    mailbox.setDelay(0);
    expect(Date.now() - started).toBeGreaterThanOrEqual(290);
  });

  it("keeps only the newest maxMessages messages", async () => {
    const transport = transportFor(mailbox);
    for (const n of [1, 2, 3, 4]) await transport.sendMail({ ...sample, subject: `n${n}` });
    expect(mailbox.messages().map((m) => m.subject)).toEqual(["n2", "n3", "n4"]);
  });

  it("waitFor resolves on earlier and later messages and times out with a count", async () => {
    const transport = transportFor(mailbox);
    await transport.sendMail({ ...sample, subject: "first" });
    const pending = mailbox.waitFor((m) => m.subject.startsWith("w") || m.subject === "first", 2000, 2);
    await transport.sendMail({ ...sample, subject: "w2" });
    expect((await pending).map((m) => m.subject)).toEqual(["first", "w2"]);
    await expect(mailbox.waitFor((m) => m.subject === "never", 50)).rejects.toThrow(/found 0/);
  });
});
