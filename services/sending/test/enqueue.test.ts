import { promises as dnsPromises } from "node:dns";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { connect, type NatsConnection } from "@nats-io/transport-node";
import { dkimVerify } from "mailauth/lib/dkim/verify.js";
import { newProject, sharedPlatform } from "@mailroom/testkit/shared";
import { messagesTo, rawMessage, signedHeaders, uniqueAddress, verifiedDomain } from "./helpers.js";

type Project = Awaited<ReturnType<typeof newProject>>;

describe("sending.enqueue (campaign and workflow mail)", () => {
  let p: Project;
  let domain: string;
  let nc: NatsConnection;
  const call = async (op: string, body: unknown) =>
    JSON.parse(new TextDecoder().decode((await nc.request(`${sharedPlatform().prefix}.rpc.${op}`, JSON.stringify(body), { timeout: 5000 })).data));

  beforeAll(async () => {
    p = await newProject("enqueue");
    domain = (await verifiedDomain(p.api)).domain;
    nc = await connect({ servers: process.env.NATS_URL ?? "nats://127.0.0.1:4222" });
  });
  afterAll(async () => {
    await nc.close();
  });

  it("queues once per idempotency key and sends marketing mail with signed one-click unsubscribe headers", async () => {
    const to = uniqueAddress("camp");
    const campaignId = "01a1fce9-81a0-718d-aa48-cb3c0bc9a19c";
    const request = {
      projectId: p.id,
      source: { type: "CAMPAIGN", campaignId },
      idempotencyKey: `campaign:${campaignId}:${to}`,
      to,
      contactId: null,
      from: `news@${domain}`,
      fromName: "News",
      subject: "Hello {{ contact.email }}",
      body: '<p>{{ plan ?? "free" }}</p><a href="{{ unsubscribeUrl }}">unsubscribe</a>',
      data: { plan: "pro" },
      marketing: true,
    };
    const first = await call("sending.enqueue", request);
    const second = await call("sending.enqueue", request);
    expect(first.ok).toBe(true);
    expect(second.result.emailId).toBe(first.result.emailId);
    const emailId = first.result.emailId;

    const [msg] = await messagesTo(to);
    expect(msg!.subject).toBe(`Hello ${to}`);
    expect(msg!.html).toContain("<p>pro</p>");
    const header = (name: string) => msg!.headers.find((h: any) => h.name === name)?.value;
    expect(header("list-unsubscribe")).toMatch(/^<http:\/\/127\.0\.0\.1:\d+\/u\/[A-Za-z0-9_-]{70}>$/);
    expect(header("list-unsubscribe-post")).toBe("List-Unsubscribe=One-Click");
    expect(header("precedence")).toBe("bulk");
    expect(msg!.html).toContain(header("list-unsubscribe").slice(1, -1));

    const resolver = new dnsPromises.Resolver();
    resolver.setServers([sharedPlatform().dnsAddress]);
    const result = await dkimVerify(await rawMessage(msg!.id), { resolver: (name: string, type: string) => resolver.resolve(name, type as "TXT") });
    expect(result.results[0]!.status.result).toBe("pass");
    expect(signedHeaders(msg!)).toEqual(expect.arrayContaining(["list-unsubscribe", "list-unsubscribe-post"]));

    const record = await p.api.get(`/emails/${emailId}`);
    expect(record.body).toMatchObject({ sourceType: "CAMPAIGN", campaignId, contactId: null });
    expect((await p.api.get(`/emails?campaignId=${campaignId}`)).body.data).toHaveLength(1);
    await new Promise((r) => setTimeout(r, 500));
    expect(await messagesTo(to)).toHaveLength(1);
  });

  it("refuses an unverified sender and answers templateExists", async () => {
    const refused = await call("sending.enqueue", {
      projectId: p.id,
      source: { type: "WORKFLOW" },
      idempotencyKey: "x",
      to: uniqueAddress(),
      contactId: null,
      from: "a@unverified.mailroom.test",
      subject: "s",
      body: "b",
      data: {},
      marketing: false,
    });
    expect(refused).toMatchObject({ ok: false, error: { error: "DOMAIN_NOT_VERIFIED" } });
    const t = await p.api.post("/templates", { name: "t", subject: "s", body: "b", type: "MARKETING" });
    expect((await call("sending.templateExists", { projectId: p.id, templateId: t.body.id })).result).toEqual({ exists: true, type: "MARKETING" });
    expect((await call("sending.templateExists", { projectId: p.id, templateId: "nope" })).result).toEqual({ exists: false, type: null });
  });
});
