import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { wireNames } from "@mailroom/contracts";
import { mailboxMessages, newProject, openDrain, sharedPlatform, type Drain } from "@mailroom/testkit/shared";
import { uniqueAddress, uniqueDomain, verifiedDomain } from "./helpers.js";

type Project = Awaited<ReturnType<typeof newProject>>;

const b64 = (bytes: number) => Buffer.alloc(bytes, 1).toString("base64");

describe("/v1/send refuses a bad request before doing anything", () => {
  let p: Project;
  let domain: string;
  let foreignDomain: string;
  let pendingDomain: string;
  let drain: Drain;
  const recipients: string[] = [];
  const to = () => {
    const a = uniqueAddress("bad");
    recipients.push(a);
    return a;
  };
  beforeAll(async () => {
    p = await newProject("send-validation");
    domain = (await verifiedDomain(p.api)).domain;
    foreignDomain = (await verifiedDomain((await newProject("foreign")).api)).domain;
    pendingDomain = (await p.api.post("/domains", { domain: uniqueDomain("pending") })).body.domain;
    drain = await openDrain();
  });
  afterAll(() => drain?.close());

  const ok = () => ({ to: to(), from: `a@${domain}`, subject: "s", body: "<p>b</p>" });
  const attachment = { filename: "a.txt", content: b64(10), contentType: "text/plain" };

  const cases: Array<[string, () => Record<string, unknown>, number, string]> = [
    ["an invalid recipient", () => ({ ...ok(), to: "not-an-email" }), 400, "VALIDATION_ERROR"],
    ["an empty recipient list", () => ({ ...ok(), to: [] }), 400, "VALIDATION_ERROR"],
    ["an invalid recipient after a valid one", () => ({ ...ok(), to: [to(), { email: "nope" }] }), 400, "VALIDATION_ERROR"],
    ["a subject with a newline", () => ({ ...ok(), subject: "a\nBcc: x@example.com" }), 400, "VALIDATION_ERROR"],
    ["a subject with a carriage return", () => ({ ...ok(), subject: "a\rb" }), 400, "VALIDATION_ERROR"],
    ["a subject over 998 characters", () => ({ ...ok(), subject: "s".repeat(999) }), 400, "VALIDATION_ERROR"],
    ["an empty body", () => ({ ...ok(), body: "" }), 400, "VALIDATION_ERROR"],
    ["no subject and no template", () => ({ to: to(), from: `a@${domain}`, body: "b" }), 400, "VALIDATION_ERROR"],
    ["no from and no template", () => ({ to: to(), subject: "s", body: "b" }), 400, "VALIDATION_ERROR"],
    ["an unknown template", () => ({ to: to(), template: "01a1fce9-81a0-718d-aa48-cb3c0bc9a19b" }), 400, "VALIDATION_ERROR"],
    ["a malformed from", () => ({ ...ok(), from: "nobody" }), 400, "VALIDATION_ERROR"],
    ["a malformed reply", () => ({ ...ok(), reply: "nobody" }), 400, "VALIDATION_ERROR"],
    ["a header name with CR LF", () => ({ ...ok(), headers: { "X-A\r\nBcc": "x@example.com" } }), 400, "VALIDATION_ERROR"],
    ["a header name with a colon", () => ({ ...ok(), headers: { "X-A:": "1" } }), 400, "VALIDATION_ERROR"],
    ["a header value with LF", () => ({ ...ok(), headers: { "X-A": "1\nBcc: x@example.com" } }), 400, "VALIDATION_ERROR"],
    ["a header value over 998 characters", () => ({ ...ok(), headers: { "X-A": "v".repeat(999) } }), 400, "VALIDATION_ERROR"],
    ["a header Mailroom sets itself", () => ({ ...ok(), headers: { From: "ceo@example.com" } }), 400, "VALIDATION_ERROR"],
    ["a Liquid syntax error", () => ({ ...ok(), body: "{% for %}" }), 400, "VALIDATION_ERROR"],
    ["11 attachments", () => ({ ...ok(), attachments: Array.from({ length: 11 }, () => attachment) }), 400, "VALIDATION_ERROR"],
    ["content that is not base64", () => ({ ...ok(), attachments: [{ ...attachment, content: "not base64!" }] }), 400, "VALIDATION_ERROR"],
    ["a filename with a quote", () => ({ ...ok(), attachments: [{ ...attachment, filename: 'a".txt' }] }), 400, "VALIDATION_ERROR"],
    ["a filename with a newline", () => ({ ...ok(), attachments: [{ ...attachment, filename: "a\n.txt" }] }), 400, "VALIDATION_ERROR"],
    ["a filename over 255 characters", () => ({ ...ok(), attachments: [{ ...attachment, filename: `${"a".repeat(252)}.txt` }] }), 400, "VALIDATION_ERROR"],
    ["a contentType over 255 characters", () => ({ ...ok(), attachments: [{ ...attachment, contentType: `text/${"a".repeat(251)}` }] }), 400, "VALIDATION_ERROR"],
    ["an inline attachment without contentId", () => ({ ...ok(), attachments: [{ ...attachment, disposition: "inline" }] }), 400, "VALIDATION_ERROR"],
    ["attachments over 10 MB in total", () => ({ ...ok(), attachments: [{ ...attachment, content: b64(6 * 1024 * 1024) }, { ...attachment, content: b64(4 * 1024 * 1024 + 1) }] }), 413, "PAYLOAD_TOO_LARGE"],
    ["a from on an unverified domain", () => ({ ...ok(), from: "a@unverified.mailroom.test" }), 403, "DOMAIN_NOT_VERIFIED"],
    ["a from on a domain pending verification", () => ({ ...ok(), from: `a@${pendingDomain}` }), 403, "DOMAIN_NOT_VERIFIED"],
    ["a from on another project's domain", () => ({ ...ok(), from: `a@${foreignDomain}` }), 403, "DOMAIN_NOT_VERIFIED"],
  ];

  it.each(cases)("refuses %s", async (_name, body, status, error) => {
    const res = await p.api.post("/v1/send", body());
    expect(res.status).toBe(status);
    expect(res.body.error).toBe(error);
  });

  it("refuses a template whose from is missing when the request has none", async () => {
    const t = await p.api.post("/templates", { name: "No from", subject: "s", body: "b", type: "TRANSACTIONAL" });
    const res = await p.api.post("/v1/send", { to: to(), template: t.body.id });
    expect(res.status).toBe(400);
    expect(res.body.details.map((d: any) => d.path)).toContain("from");
  });

  it("refuses a whole message over 40 MB", async () => {
    const res = await p.api.post("/v1/send", { ...ok(), body: "a".repeat(41 * 1024 * 1024) });
    expect(res.status).toBe(413);
    expect(res.body.error).toBe("PAYLOAD_TOO_LARGE");
  }, 60_000);

  it("queued nothing, upserted nobody and delivered nothing for any of them", async () => {
    expect((await p.api.get("/emails")).body.data).toEqual([]);
    expect((await p.api.get("/contacts")).body.data).toEqual([]);
    // a job queued without a record would have been delivered by the time both lanes are drained
    const { sendingTransactional, sendingDelivery } = wireNames(sharedPlatform().prefix).consumers;
    await drain.through([sendingTransactional, sendingDelivery]);
    const delivered = (await mailboxMessages(recipients)).filter((m) => recipients.some((r) => m.envelope.rcptTo.includes(r)));
    expect(delivered).toEqual([]);
  });
});
