import { promises as dnsPromises } from "node:dns";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { connect, type NatsConnection } from "@nats-io/transport-node";
import { dkimVerify } from "mailauth/lib/dkim/verify.js";
import { wireNames } from "@mailroom/contracts";
import { newProject, openDrain, sharedPlatform, type Drain } from "@mailroom/testkit/shared";
import { emailEvents } from "./events.js";
import { messagesTo, rawMessage, signedHeaders, uniqueAddress, verifiedDomain } from "./helpers.js";

type Project = Awaited<ReturnType<typeof newProject>>;

describe("sending.enqueue (campaign and workflow mail)", () => {
  let p: Project;
  let domain: string;
  let nc: NatsConnection;
  let drain: Drain;
  /** Every delivery job of both lanes acknowledged: whatever was queued has gone out (or failed). */
  const jobsDone = () => {
    const { sendingTransactional, sendingDelivery } = wireNames(sharedPlatform().prefix).consumers;
    return drain.through([sendingTransactional, sendingDelivery]);
  };
  const call = async (op: string, body: unknown) =>
    JSON.parse(new TextDecoder().decode((await nc.request(`${sharedPlatform().prefix}.rpc.${op}`, JSON.stringify(body), { timeout: 5000 })).data));

  beforeAll(async () => {
    p = await newProject("enqueue");
    domain = (await verifiedDomain(p.api)).domain;
    nc = await connect({ servers: process.env.NATS_URL ?? "nats://127.0.0.1:4222" });
    drain = await openDrain();
  });
  afterAll(async () => {
    await drain?.close();
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
    await jobsDone();
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

  describe("sending.enqueueBatch", () => {
    const campaignId = "01a1fce9-81a0-718d-aa48-cb3c0bc9a1ff";
    const batch = (recipients: Array<{ key: string; to: string; data?: Record<string, unknown> }>, extra: Record<string, unknown> = {}) => ({
      projectId: p.id,
      source: { type: "CAMPAIGN", campaignId },
      from: `news@${domain}`,
      subject: "Batch {{ contact.email }}",
      body: "<p>{% for i in (1..n) %}x{% endfor %}</p>",
      marketing: true,
      recipients: recipients.map((r) => ({ idempotencyKey: r.key, to: r.to, contactId: null, data: r.data ?? { n: 2 } })),
      ...extra,
    });

    it("queues one email per new key, answers in order, and keeps a bad recipient to itself (a FAILED email with the reason)", async () => {
      const [a, b, c] = [uniqueAddress("ba"), uniqueAddress("bb"), uniqueAddress("bc")];
      const earlier = await call("sending.enqueueBatch", batch([{ key: `k:${a}`, to: a }]));
      expect(earlier.ok).toBe(true);
      const first = earlier.result.results[0].emailId;

      const res = await call(
        "sending.enqueueBatch",
        batch([
          { key: `k:${b}`, to: b, data: { n: 3 } },
          { key: `k:${a}`, to: a }, // queued before: its first email, nothing new
          { key: `k:${c}`, to: c, data: { n: 1e12 } }, // breaks the template's memory bound
          { key: `k:${b}`, to: b }, // the same key twice in one batch: one email
        ]),
      );
      expect(res.ok).toBe(true);
      const [rb, ra, rc, rb2] = res.result.results;
      expect(ra).toEqual({ emailId: first });
      expect(rb.emailId).toMatch(/^[0-9a-f-]{36}$/);
      expect(rb2).toEqual(rb);
      expect(rc.emailId).toMatch(/^[0-9a-f-]{36}$/);

      const [mb] = await messagesTo(b);
      expect(mb!.subject).toBe(`Batch ${b}`);
      expect(mb!.html).toContain("<p>xxx</p>");
      expect(await messagesTo(a)).toHaveLength(1);
      await jobsDone();
      expect(await messagesTo(b)).toHaveLength(1);
      expect(await messagesTo(c, 0)).toHaveLength(0);
      expect((await p.api.get(`/emails/${rb.emailId}`)).body).toMatchObject({ sourceType: "CAMPAIGN", campaignId, to: b });
      // the recipient whose data broke the template's memory bound: FAILED, with why, and never sent
      expect((await p.api.get(`/emails/${rc.emailId}`)).body).toMatchObject({ status: "FAILED", to: c, campaignId, subject: "Batch {{ contact.email }}" });
      const [failed] = await emailEvents(sharedPlatform().prefix, p.id, (e) => e.name === "email.failed" && e.data.emailId === rc.emailId);
      expect(failed!.data.reason).toMatch(/^the template could not be rendered: rendering took more than its memory bound/);
    });

    it("refuses the whole batch for an unverified sender or an unknown template, queueing nothing", async () => {
      const to = uniqueAddress("bn");
      const unverified = await call("sending.enqueueBatch", batch([{ key: `u:${to}`, to }], { from: "a@unverified.mailroom.test" }));
      expect(unverified).toMatchObject({ ok: false, error: { error: "DOMAIN_NOT_VERIFIED" } });
      const noTemplate = await call(
        "sending.enqueueBatch",
        batch([{ key: `t:${to}`, to }], { templateId: "01a1fce9-81a0-718d-aa48-cb3c0bc9a100", subject: undefined, body: undefined }),
      );
      expect(noTemplate).toMatchObject({ ok: false, error: { error: "NOT_FOUND" } });
      const invalid = await call("sending.enqueueBatch", batch([{ key: `v:${to}`, to: "not an address" }]));
      expect(invalid).toMatchObject({ ok: false, error: { error: "VALIDATION_ERROR" } });
      const empty = await call("sending.enqueueBatch", batch([]));
      expect(empty).toMatchObject({ ok: false, error: { error: "VALIDATION_ERROR" } });
      await jobsDone();
      expect(await messagesTo(to, 0)).toHaveLength(0);
      expect((await p.api.get(`/emails?campaignId=${campaignId}`)).body.data.map((e: { to: string }) => e.to)).not.toContain(to);
    });

    it("ends a batch whose renders run away in bounded time: each email FAILED with the reason", async () => {
      const recipients = Array.from({ length: 20 }, (_, i) => uniqueAddress(`slow${i}`));
      const started = performance.now();
      const res = await call(
        "sending.enqueueBatch",
        batch(
          recipients.map((to) => ({ key: `slow:${to}`, to })),
          { body: "{% for i in (1..100000) %}{% for j in (1..1000) %}{% endfor %}{% endfor %}" },
        ),
      );
      expect(res.ok).toBe(true);
      expect(performance.now() - started).toBeLessThan(5000); // the callers' RPC timeout
      // what the call got to is FAILED with the reason; anything past its rendering budget is to be asked again
      const done = res.result.results.filter((r: any) => r.emailId);
      expect(done.length).toBeGreaterThan(0);
      for (const r of res.result.results.filter((x: any) => !x.emailId)) expect(r.error.code).toBe("SERVICE_UNAVAILABLE");
      const [failed] = await emailEvents(sharedPlatform().prefix, p.id, (e) => e.name === "email.failed" && e.data.emailId === done[0].emailId);
      expect(failed!.data.reason).toMatch(/^the template could not be rendered: rendering took more than/);
      expect((await p.api.get(`/emails/${done[0].emailId}`)).body.status).toBe("FAILED");
    });
  });
});
