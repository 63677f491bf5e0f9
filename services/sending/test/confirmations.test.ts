import postgres from "postgres";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { serviceDatabaseUrl } from "@mailroom/kit";
import { DATABASE_URL, type Drain } from "@mailroom/testkit";
import { newProject, openDrain, sharedPlatform, waitFor } from "@mailroom/testkit/shared";
import { messagesTo, uniqueAddress, verifiedDomain } from "./helpers.js";

/**
 * Double opt-in (decisions.md §15) as someone who is not the tenant sees it: a public key sits in a
 * web page, so anyone can ask a project to send a confirmation to anyone. The address gets at most
 * one a day from a project and three from all projects; a project's own words go out only from its
 * own verified domain; a confirmation link works once, for seven days.
 */
type Project = Awaited<ReturnType<typeof newProject>>;
const SYSTEM_FROM = "no-reply@bounces.mailroom.test"; // SYSTEM_FROM's default on the test platform
let sending: postgres.Sql;
let contacts: postgres.Sql;
let drain: Drain;

beforeAll(async () => {
  const prefix = sharedPlatform().prefix;
  sending = postgres(serviceDatabaseUrl(DATABASE_URL, prefix, "sending"), { max: 1, onnotice: () => undefined });
  contacts = postgres(serviceDatabaseUrl(DATABASE_URL, prefix, "contacts"), { max: 1, onnotice: () => undefined });
  drain = await openDrain();
});
afterAll(async () => {
  await sending?.end();
  await contacts?.end();
  await drain?.close();
});

async function optedIn(name: string): Promise<Project> {
  const p = await newProject(name);
  expect((await p.api.patch("/settings/sending", { doubleOptIn: { enabled: true } })).status).toBe(200);
  return p;
}

const subscribe = (p: Project, email: string, subscribed = true) => p.publicApi.post("/v1/track", { email, event: "signup", subscribed });

/** Every confirmation the contacts service was asked for has been answered by sending (none waits for a retry). */
async function confirmationsAsked(p: Project): Promise<void> {
  await waitFor(async () => (await contacts`select 1 from pending_confirmations where project_id = ${p.id} limit 1`).length === 0, {
    what: "the confirmation requests to be answered",
  });
}

/** The project's email records to `to`: what sending made, whether or not it is delivered yet. */
async function emailsTo(p: Project, to: string): Promise<Array<{ id: string; from: string; subject: string }>> {
  const res = await p.api.get(`/emails?to=${encodeURIComponent(to)}`);
  expect(res.status).toBe(200);
  return res.body.data;
}

/** The messages the sink holds for `to` once everything queued so far is delivered. */
async function deliveredTo(to: string) {
  await drain.through("sending-transactional");
  return messagesTo(to, 0);
}

const linkOf = (html: string) => new URL(/href="([^"]*\/c\/[A-Za-z0-9_-]+)"/.exec(html)![1]!).pathname;
const at = (path: string) => `${sharedPlatform().url}${path}`;

describe("confirmations anyone can ask for", () => {
  let p: Project;
  beforeAll(async () => {
    p = await optedIn("confirmations");
  });

  it("reach an address once a day from a project, however often they are asked for", async () => {
    const email = uniqueAddress("asked-often");
    for (let i = 0; i < 15; i++) {
      // subscribing again after an unsubscribe asks again, as a page's form would
      const res = await subscribe(p, email, i % 4 !== 3);
      expect(res.status, JSON.stringify(res.body)).toBe(200);
    }
    await confirmationsAsked(p);
    expect(await emailsTo(p, email)).toHaveLength(1);
    expect(await deliveredTo(email)).toHaveLength(1);
  });

  it("reach an address once a day from a project when asked for many times at once", async () => {
    const email = uniqueAddress("asked-at-once");
    const answers = await Promise.all(Array.from({ length: 12 }, () => subscribe(p, email)));
    expect(answers.map((a) => a.status)).toEqual(Array(12).fill(200));
    await confirmationsAsked(p);
    expect(await emailsTo(p, email)).toHaveLength(1);
    expect(await deliveredTo(email)).toHaveLength(1);
  });

  it("reach an address at most three times a day from all projects together", async () => {
    const email = uniqueAddress("asked-everywhere");
    const projects = await Promise.all(["first", "second", "third", "fourth"].map((n) => optedIn(`everywhere ${n}`)));
    for (const q of projects) {
      expect((await subscribe(q, email)).status).toBe(200);
      await confirmationsAsked(q);
    }
    const sent = await Promise.all(projects.map(async (q) => (await emailsTo(q, email)).length));
    expect(sent).toEqual([1, 1, 1, 0]);
    expect(await deliveredTo(email)).toHaveLength(3);
  });
});

describe("a confirmation's words", () => {
  it("are Mailroom's own from SYSTEM_FROM, naming the project and the address, unless the project's template is on its verified domain", async () => {
    const p = await optedIn("Your account is suspended. Call +1 555 0100 now to keep your savings safe <b>today</b>");
    const phishing = { name: "Suspended", subject: "Your account is suspended", body: '<p>Log in at <a href="https://evil.example/login">our site</a> {{ confirmUrl }}</p>', type: "TRANSACTIONAL", replyTo: "help@evil.example" };

    // a template without a sender of the project's own cannot be the confirmation
    const unsent = await p.api.post("/templates", phishing);
    expect(unsent.status).toBe(201);
    const refused = await p.api.patch("/settings/sending", { doubleOptIn: { enabled: true, templateId: unsent.body.id } });
    expect(refused.status).toBe(400);
    expect(refused.body.details.map((d: { path: string }) => d.path)).toEqual(["doubleOptIn.templateId"]);
    expect((await p.api.get("/settings/sending")).body.doubleOptIn).toEqual({ enabled: true, templateId: null });

    const email = uniqueAddress("fixed-words");
    await subscribe(p, email);
    const [mail] = await messagesTo(email, 1);
    expect(mail!.from).toBe(SYSTEM_FROM);
    expect(mail!.headers.find((h: { name: string }) => h.name === "reply-to")).toBeUndefined();
    const named = /^Confirm your subscription to (.*)$/.exec(mail!.subject)![1]!;
    expect([...named].length).toBeLessThanOrEqual(60);
    expect(named.startsWith("Your account is suspended. Call +1 555 0100")).toBe(true);
    expect(mail!.html).toContain(email);
    expect(mail!.html).not.toContain("<b>today");
    expect(mail!.html).not.toContain("evil.example");
  });

  it("are the project's from its verified domain, and Mailroom's again once that domain is gone", async () => {
    const p = await optedIn("own words");
    const domain = await verifiedDomain(p.api);
    const template = await p.api.post("/templates", {
      name: "Confirm",
      subject: "Welcome aboard: one click left",
      body: '<p>Hi {{ email }}, <a href="{{ confirmUrl }}">confirm here</a></p>',
      type: "TRANSACTIONAL",
      from: `hello@${domain.domain}`,
      fromName: "Own Words",
      replyTo: `support@${domain.domain}`,
    });
    expect(template.status).toBe(201);
    const saved = await p.api.patch("/settings/sending", { doubleOptIn: { enabled: true, templateId: template.body.id } });
    expect(saved.status).toBe(200);

    const first = uniqueAddress("own-words");
    await subscribe(p, first);
    const [own] = await messagesTo(first, 1);
    expect(own!.from).toBe(`hello@${domain.domain}`);
    expect(own!.subject).toBe("Welcome aboard: one click left");
    expect(own!.headers.find((h: { name: string }) => h.name === "reply-to")?.value).toContain(`support@${domain.domain}`);

    // the setting stays, but the domain no longer vouches for the words
    expect((await p.api.delete(`/domains/${domain.id}`)).status).toBe(204);
    const second = uniqueAddress("domain-gone");
    await subscribe(p, second);
    const [fixed] = await messagesTo(second, 1);
    expect(fixed!.from).toBe(SYSTEM_FROM);
    expect(fixed!.subject).toBe("Confirm your subscription to own words");
    expect(fixed!.headers.find((h: { name: string }) => h.name === "reply-to")).toBeUndefined();
    expect(fixed!.html).not.toContain("Welcome aboard");
  });
});

describe("a confirmation link", () => {
  let p: Project;
  beforeAll(async () => {
    p = await optedIn("links");
  });

  async function confirmation(tag: string) {
    const email = uniqueAddress(tag);
    const tracked = await subscribe(p, email);
    const [mail] = await messagesTo(email, 1);
    return { email, contactId: tracked.body.data.contact as string, path: linkOf(mail!.html), emailId: (await emailsTo(p, email))[0]!.id };
  }
  const subscribed = async (contactId: string) => (await p.api.get(`/contacts/${contactId}`)).body.subscribed as boolean;

  it("subscribes once: used again after an unsubscribe, it says so and changes nothing", async () => {
    const c = await confirmation("used-once");
    const first = await fetch(at(c.path), { method: "POST" });
    expect(first.status).toBe(200);
    expect(await first.text()).toContain("Thank you: your subscription is confirmed.");
    expect(await subscribed(c.contactId)).toBe(true);

    expect((await p.api.patch(`/contacts/${c.contactId}`, { subscribed: false })).status).toBe(200);
    for (const method of ["GET", "POST"]) {
      const again = await fetch(at(c.path), { method });
      expect(again.status).toBe(200);
      expect(await again.text()).toContain("This confirmation link was used already");
    }
    expect(await subscribed(c.contactId)).toBe(false);
  });

  it("expires after seven days: it says so and changes nothing", async () => {
    const c = await confirmation("expired");
    await sending`update emails set created_at = now() - interval '7 days 1 minute' where id = ${c.emailId}`;
    for (const method of ["GET", "POST"]) {
      const late = await fetch(at(c.path), { method });
      expect(late.status).toBe(200);
      expect(await late.text()).toContain("This confirmation link has expired");
    }
    expect(await subscribed(c.contactId)).toBe(false);
    // a day short of it, the link still works
    await sending`update emails set created_at = now() - interval '6 days' where id = ${c.emailId}`;
    expect((await fetch(at(c.path), { method: "POST" })).status).toBe(200);
    expect(await subscribed(c.contactId)).toBe(true);
  });
});
