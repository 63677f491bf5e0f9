import { promises as dnsPromises } from "node:dns";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { connect, type NatsConnection } from "@nats-io/transport-node";
import { dkimVerify } from "mailauth/lib/dkim/verify.js";
import { newProject, openDrain, sharedPlatform, waitFor, type Drain } from "@mailroom/testkit/shared";
import { signToken } from "../src/domain/links.js";
import { familyEvents, settledEvents } from "./events.js";
import { messagesTo, rawMessage, signedHeaders, uniqueAddress, verifiedDomain } from "./helpers.js";

type Project = Awaited<ReturnType<typeof newProject>>;

const TOKEN = "[A-Za-z0-9_-]{70}";
const hrefs = (html: string) => [...html.matchAll(/href="([^"]+)"/g)].map((m) => m[1]!);
const pixelOf = (html: string) => new RegExp(`src="([^"]+/t/o/${TOKEN})"`).exec(html)![1]!;
const path = (url: string) => new URL(url).pathname;
const FORM = { "content-type": "application/x-www-form-urlencoded" };

async function sent(p: Project, emailId: string) {
  return waitFor(async () => ((await p.api.get(`/emails/${emailId}`)).body.status !== "QUEUED" ? true : null), { what: "SENT" });
}

describe("open and click tracking, subscription links", () => {
  let p: Project;
  let other: Project;
  let domain: string;
  let drain: Drain;
  const prefix = () => sharedPlatform().prefix;

  beforeAll(async () => {
    [p, other, drain] = await Promise.all([newProject("links"), newProject("links-other"), openDrain()]);
    domain = (await verifiedDomain(p.api)).domain;
  });
  afterAll(() => drain?.close());

  async function send(body: string, extra: Record<string, unknown> = {}) {
    const to = uniqueAddress("trk");
    const res = await p.api.post("/v1/send", { to, from: `news@${domain}`, subject: "Links", body, subscribed: true, ...extra });
    expect(res.status).toBe(200);
    const { email: emailId, contact } = res.body.data.emails[0];
    const [msg] = await messagesTo(to);
    await sent(p, emailId);
    return { to, emailId, contactId: contact.id as string, html: msg!.html as string };
  }

  it("records the first open and click as events with every field, and only counts the later ones", async () => {
    const { emailId, contactId, to, html } = await send(
      `<p><a href="https://shop.example/a?x=1&amp;y=2">shop</a> <a href="https://docs.example/">docs</a>
       <a href="{{ unsubscribeUrl }}">unsubscribe</a> <a href="{{ manageUrl }}">manage</a></p>`,
    );
    const links = hrefs(html);
    expect(links[0]).toMatch(new RegExp(`/t/c/${TOKEN}$`));
    expect(links[1]).toMatch(new RegExp(`/t/c/${TOKEN}$`));
    // subscription links are never rewritten
    expect(links[2]).toMatch(new RegExp(`/u/${TOKEN}$`));
    expect(links[3]).toMatch(new RegExp(`/m/${TOKEN}$`));

    for (let i = 0; i < 2; i++) {
      const pixel = await p.anon.get(path(pixelOf(html)));
      expect(pixel.status).toBe(200);
      expect(pixel.headers.get("content-type")).toBe("image/gif");
      expect(pixel.headers.get("cache-control")).toContain("no-store");
    }
    const clicks = [await p.anon.get(path(links[0]!)), await p.anon.get(path(links[1]!)), await p.anon.get(path(links[0]!))];
    expect(clicks.map((c) => c.status)).toEqual([302, 302, 302]);
    expect(clicks.map((c) => c.headers.get("location"))).toEqual(["https://shop.example/a?x=1&y=2", "https://docs.example/", "https://shop.example/a?x=1&y=2"]);

    // counts are written behind the redirect, within a fraction of a second
    const record = await waitFor(async () => {
      const r = (await p.api.get(`/emails/${emailId}`)).body;
      return r.opens === 2 && r.clicks === 3 ? r : null;
    }, { what: "2 opens and 3 clicks on the record" });
    expect(record.status).toBe("CLICKED");
    expect(record.openedAt).not.toBeNull();
    expect(record.clickedAt).not.toBeNull();

    const base = { emailId, subject: "Links", from: `news@${domain}`, fromName: "", messageId: record.messageId, templateId: null, campaignId: null, sourceType: "TRANSACTIONAL" };
    const opens = await settledEvents(drain, prefix(), "email", p.id, (e) => e.name === "email.open" && e.data.emailId === emailId);
    expect(opens).toHaveLength(1);
    expect(opens[0]).toMatchObject({ contactId, email: to, data: { ...base, opens: 1, isFirstOpen: true, openedAt: record.openedAt } });
    const clickEvents = await settledEvents(drain, prefix(), "email", p.id, (e) => e.name === "email.click" && e.data.emailId === emailId);
    expect(clickEvents).toHaveLength(1);
    expect(clickEvents[0]).toMatchObject({
      contactId,
      data: { ...base, link: "https://shop.example/a?x=1&y=2", clicks: 1, isFirstClick: true, clickedAt: record.clickedAt },
    });
  });

  it("answers 404 to a tampered token, a token of another project and a link the email does not have, recording nothing", async () => {
    // another email, whose click below marks how far the written-behind counts have got
    const control = send(`<a href="https://control.example/">control</a>`);
    control.catch(() => undefined); // awaited below; a failure then fails the test
    const { emailId, html } = await send(`<a href="https://only.example/">only</a>`);
    const click = path(hrefs(html)[0]!);
    const token = click.split("/").pop()!;
    const tampered = token.slice(0, 10) + (token[10] === "A" ? "B" : "A") + token.slice(11);
    const secret = sharedPlatform().env.MAILROOM_SECRET!;
    const foreign = signToken(secret, { kind: "c", emailId, projectId: other.id, index: 0 });
    const beyond = signToken(secret, { kind: "c", emailId, projectId: p.id, index: 1 });
    const openOfOther = signToken(secret, { kind: "o", emailId, projectId: other.id, index: 0 });
    for (const t of [tampered, foreign, beyond, "nonsense"]) {
      const res = await p.anon.get(`/t/c/${t}`);
      expect(res.status).toBe(404);
      expect(res.headers.get("location")).toBeNull();
    }
    expect((await p.anon.get(`/t/o/${openOfOther}`)).status).toBe(404);
    expect((await p.anon.get(`/t/o/${token}`)).status).toBe(404); // a click token is not an open token
    for (const page of ["u", "s", "m"]) expect((await p.anon.get(`/${page}/${tampered}`)).status).toBe(404);
    expect((await p.anon.post(`/u/${signToken(secret, { kind: "u", emailId, projectId: other.id, index: 0 })}`, "", FORM)).status).toBe(404);
    // Counts are written behind in batches, one after another, each taking everything pending: once
    // a later click is on its record, any count the refused requests had left would be on this one.
    const marker = await control;
    expect((await p.anon.get(path(hrefs(marker.html)[0]!))).status).toBe(302);
    await waitFor(async () => (await p.api.get(`/emails/${marker.emailId}`)).body.clicks === 1, { what: "the control click counted" });
    expect((await p.api.get(`/emails/${emailId}`)).body).toMatchObject({ opens: 0, clicks: 0, status: "DELIVERED" });
  });

  it("leaves the HTML alone with tracking: false on the send, or when the project turns tracking off", async () => {
    const body = `<a href="https://plain.example/">x</a>`;
    const off = await send(body, { tracking: false });
    expect(off.html).toContain(`<a href="https://plain.example/">x</a>`);
    expect(off.html).not.toContain("/t/o/");

    expect((await p.api.get("/settings/sending")).body).toEqual({ tracking: true, doubleOptIn: { enabled: false, templateId: null }, frequencyCap: null });
    expect((await p.api.patch("/settings/sending", { tracking: false })).body).toEqual({ tracking: false, doubleOptIn: { enabled: false, templateId: null }, frequencyCap: null });
    try {
      const projectOff = await send(body);
      expect(projectOff.html).toContain(`<a href="https://plain.example/">x</a>`);
      expect(projectOff.html).not.toContain("/t/o/");
    } finally {
      await p.api.patch("/settings/sending", { tracking: true });
    }
    expect((await p.api.patch("/settings/sending", { tracking: "no" })).status).toBe(400);
  });

  it("GET on the unsubscribe page changes nothing; POST unsubscribes, emits the event, and subscribing again works", async () => {
    const { contactId, html } = await send(`<a href="{{ unsubscribeUrl }}">u</a> <a href="{{ manageUrl }}">m</a>`);
    const [u, m] = hrefs(html).map(path);
    const page = await p.anon.get(u!);
    expect(page.status).toBe(200);
    expect(page.headers.get("content-type")).toContain("text/html");
    expect(page.body).toContain('<html lang="en">');
    expect(page.body).toContain('method="post"');
    expect((await p.api.get(`/contacts/${contactId}`)).body.subscribed).toBe(true);
    expect((await p.anon.get(m!)).body).toContain("You are subscribed");

    const done = await p.anon.post(u!, "", FORM);
    expect(done.status).toBe(200);
    expect(done.body).toContain("You are unsubscribed");
    expect((await p.api.get(`/contacts/${contactId}`)).body.subscribed).toBe(false);
    await familyEvents(prefix(), "contact", p.id, (e) => e.name === "contact.unsubscribed" && e.contactId === contactId);
    expect((await p.anon.get(m!)).body).toContain("You are not subscribed");

    const s = /action="([^"]+\/s\/[^"]+)"/.exec(done.body)![1]!;
    expect((await p.anon.get(path(s))).status).toBe(200);
    expect((await p.api.get(`/contacts/${contactId}`)).body.subscribed).toBe(false);
    expect((await p.anon.post(path(s), "", FORM)).status).toBe(200);
    expect((await p.api.get(`/contacts/${contactId}`)).body.subscribed).toBe(true);
    await familyEvents(prefix(), "contact", p.id, (e) => e.name === "contact.subscribed" && e.contactId === contactId);
  });

  describe("marketing mail", () => {
    let nc: NatsConnection;
    beforeAll(async () => {
      nc = await connect({ servers: process.env.NATS_URL ?? "nats://127.0.0.1:4222" });
    });
    afterAll(async () => {
      await nc.close();
    });

    it("carries List-Unsubscribe headers under the DKIM signature, and the one-click POST works without cookies", async () => {
      const to = uniqueAddress("mkt");
      const contact = await p.api.post("/contacts", { email: to, subscribed: true });
      const reply = await nc.request(
        `${prefix()}.rpc.sending.enqueue`,
        JSON.stringify({
          projectId: p.id,
          source: { type: "CAMPAIGN", campaignId: "01a1fce9-81a0-718d-aa48-cb3c0bc9a19d" },
          idempotencyKey: `mkt:${to}`,
          to,
          contactId: contact.body.id,
          from: `news@${domain}`,
          subject: "News",
          body: `<p>News</p><a href="{{ unsubscribeUrl }}">unsubscribe</a>`,
          data: {},
          marketing: true,
        }),
        { timeout: 5000 },
      );
      expect(JSON.parse(new TextDecoder().decode(reply.data)).ok).toBe(true);
      const [msg] = await messagesTo(to);
      const header = (name: string) => msg!.headers.find((h: any) => h.name === name)?.value as string;
      expect(header("list-unsubscribe")).toMatch(new RegExp(`^<http://127\\.0\\.0\\.1:\\d+/u/${TOKEN}>$`));
      expect(header("list-unsubscribe-post")).toBe("List-Unsubscribe=One-Click");
      expect(signedHeaders(msg!)).toEqual(expect.arrayContaining(["list-unsubscribe", "list-unsubscribe-post"]));
      const resolver = new dnsPromises.Resolver();
      resolver.setServers([sharedPlatform().dnsAddress]);
      const verified = await dkimVerify(await rawMessage(msg!.id), { resolver: (name: string, type: string) => resolver.resolve(name, type as "TXT") });
      expect(verified.results[0]!.status.result).toBe("pass");

      // RFC 8058: a bare POST of the form body, no cookie, no redirect
      const started = Date.now();
      const res = await fetch(header("list-unsubscribe").slice(1, -1), {
        method: "POST",
        headers: { "content-type": "application/x-www-form-urlencoded" },
        body: "List-Unsubscribe=One-Click",
        redirect: "manual",
      });
      expect(res.status).toBe(200);
      expect(res.headers.get("location")).toBeNull();
      expect(Date.now() - started).toBeLessThan(5000);
      expect((await p.api.get(`/contacts/${contact.body.id}`)).body.subscribed).toBe(false);
    });
  });
});
