import { beforeAll, describe, expect, it } from "vitest";
import { newProject, sharedPlatform, waitFor } from "@mailroom/testkit/shared";
import { campaignBody, createContacts, expectError, header, sinkMessagesTo, uniqueAddress, verifiedSender, waitForStatus } from "./helpers.js";

type Project = Awaited<ReturnType<typeof newProject>>;

/** A link of the mail, asked of the platform under test (its PUBLIC_URL is the gateway). */
const path = (url: string) => new URL(url).pathname;
const form = (url: string, body: string) =>
  fetch(`${sharedPlatform().url}${path(url)}`, { method: "POST", headers: { "content-type": "application/x-www-form-urlencoded" }, body });

/**
 * Topics (decisions.md §14) end to end through the gateway: a topic campaign reaches exactly the
 * subscribed contacts opted into it (their choice, else the topic's default); its one-click
 * unsubscribe leaves that topic only; the manage page lists the topics as checkboxes and saves them;
 * a segment can filter on a topic.
 */
describe("topics", () => {
  let p: Project;
  let from: string;
  let news: string;
  let digest: string;
  const people = {
    defaultNews: uniqueAddress("t-default"), // no choice: news is on by default, digest off
    optedOutNews: uniqueAddress("t-out"),
    digestOnly: uniqueAddress("t-digest"),
    unsubscribed: uniqueAddress("t-unsub"), // opted into news but not subscribed at all
  };
  const everyone = Object.values(people);

  beforeAll(async () => {
    p = await newProject("topics");
    from = await verifiedSender(p.id, sharedPlatform().env);
    const n = await p.api.post("/topics", { name: "Product news", description: "What we ship", defaultSubscribed: true });
    expect(n.status, JSON.stringify(n.body)).toBe(201);
    expect(n.body).toMatchObject({ name: "Product news", description: "What we ship", defaultSubscribed: true });
    news = n.body.id;
    digest = (await p.api.post("/topics", { name: "Weekly digest" })).body.id;
    await createContacts(p.api, [
      { email: people.defaultNews, subscribed: true },
      { email: people.optedOutNews, subscribed: true, topics: { [news]: false } } as never,
      { email: people.digestOnly, subscribed: true, topics: { [news]: false, [digest]: true } } as never,
      { email: people.unsubscribed, subscribed: false, topics: { [news]: true } } as never,
    ]);
  });

  it("keeps topics as a list with CRUD, and refuses a contact topic that is not the project's", async () => {
    expect((await p.api.get("/topics")).body.map((t: { id: string }) => t.id)).toEqual([news, digest]);
    const patched = await p.api.patch(`/topics/${digest}`, { description: "Sundays" });
    expect(patched.body).toMatchObject({ id: digest, name: "Weekly digest", description: "Sundays", defaultSubscribed: false });
    const temp = await p.api.post("/topics", { name: "Temporary" });
    expect((await p.api.delete(`/topics/${temp.body.id}`)).status).toBe(204);
    expectError(await p.api.get(`/topics/${temp.body.id}`), 404, "NOT_FOUND");
    const bad = await p.api.post("/contacts", { email: uniqueAddress("t-bad"), topics: { [temp.body.id]: true } });
    expectError(bad, 400, "VALIDATION_ERROR");
    expect(bad.body.details[0].path).toBe(`topics.${temp.body.id}`);
    // the contact shows its own choices only
    const listed = (await p.api.get(`/contacts?search=${encodeURIComponent(people.digestOnly.split("@")[0]!)}`)).body.data[0];
    expect(listed.topics).toEqual({ [news]: false, [digest]: true });
  });

  it("filters segments on a topic, the default counting for contacts that never chose", async () => {
    const filters = (id: string, value: boolean) => ({ logic: "AND", groups: [{ filters: [{ field: `topic.${id}`, operator: "equals", value }] }] });
    const count = async (f: object) => (await p.api.post("/segments/count", { filters: f })).body.count;
    expect(await count(filters(news, true))).toBe(2); // defaultNews, unsubscribed
    expect(await count(filters(digest, true))).toBe(1);
    const seg = await p.api.post("/segments", { name: "Digest readers", filters: filters(digest, true), trackMembership: true });
    expect(seg.status, JSON.stringify(seg.body)).toBe(201);
    expect(seg.body.memberCount).toBe(1);
    const unknown = await p.api.post("/segments", { name: "Nope", filters: filters("018f0000-0000-7000-8000-00000000dead", true) });
    expectError(unknown, 400, "VALIDATION_ERROR");
    expect(unknown.body.details[0].path).toBe("filters.groups.0.filters.0.field");
  });

  it("sends a topic campaign to exactly its opted-in subscribers; its one-click leaves that topic only", async () => {
    expectError(await p.api.post("/campaigns", campaignBody(from, { topicId: "018f0000-0000-7000-8000-00000000dead" })), 400, "VALIDATION_ERROR");
    const created = await p.api.post("/campaigns", campaignBody(from, { topicId: news, body: '<p>News</p><a href="{{ manageUrl }}">Manage</a>' }));
    expect(created.status, JSON.stringify(created.body)).toBe(200);
    expect(created.body.data.topicId).toBe(news);
    expect((await p.api.post(`/campaigns/${created.body.data.id}/send`)).status).toBe(200);
    const done = await waitForStatus(p.api, created.body.data.id, "SENT");
    expect(done.stats).toMatchObject({ recipients: 1, sent: 1 });
    const msgs = await sinkMessagesTo(sharedPlatform().mailboxUrl, everyone);
    expect(msgs.map((m) => m.envelope.rcptTo[0]!.toLowerCase())).toEqual([people.defaultNews.toLowerCase()]);

    // RFC 8058 one-click on the List-Unsubscribe URL
    const unsubscribeUrl = header(msgs[0]!, "List-Unsubscribe")!.slice(1, -1);
    expect((await form(unsubscribeUrl, "List-Unsubscribe=One-Click")).status).toBe(200);
    const contact = (await p.api.get(`/contacts?search=${encodeURIComponent(people.defaultNews.split("@")[0]!)}`)).body.data[0];
    expect(contact).toMatchObject({ subscribed: true, topics: { [news]: false } });
    expect(contact.topics[digest]).toBeUndefined();
  });

  it("shows the manage page's topic checkboxes and saves them", async () => {
    const msgs = await sinkMessagesTo(sharedPlatform().mailboxUrl, [people.defaultNews]);
    const manageUrl = /href="([^"]*\/m\/[^"]+)"/.exec(msgs[0]!.html!)![1]!;
    const page = await fetch(`${sharedPlatform().url}${path(manageUrl)}`);
    const html = await page.text();
    expect(page.status).toBe(200);
    // news was left by the one-click above, digest is off by default
    expect(html).toContain(`value="${news}"> Product news`);
    expect(html).toContain(`value="${digest}"> Weekly digest`);
    expect(html).not.toMatch(/checked/);
    const saved = await form(manageUrl, `topics=1&topic=${digest}`);
    expect(saved.status).toBe(200);
    expect(await saved.text()).toContain(`value="${digest}" checked> Weekly digest`);
    const contact = await waitFor(
      async () => {
        const c = (await p.api.get(`/contacts?search=${encodeURIComponent(people.defaultNews.split("@")[0]!)}`)).body.data[0];
        return c.topics[digest] === true ? c : null;
      },
      { timeoutMs: 5000, what: "the saved topics" },
    );
    expect(contact.topics).toEqual({ [news]: false, [digest]: true });
    expect(contact.subscribed).toBe(true);
  });
});
