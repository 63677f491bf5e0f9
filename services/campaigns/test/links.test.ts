import { beforeAll, describe, expect, it } from "vitest";
import { newProject, sharedPlatform, waitFor } from "@mailroom/testkit/shared";
import { campaignBody, createContacts, expectError, sinkMessagesTo, uniqueAddress, verifiedSender, waitForStatus } from "./helpers.js";

type Project = Awaited<ReturnType<typeof newProject>>;

const hrefs = (html: string) => [...html.matchAll(/href="([^"]+\/t\/c\/[^"]+)"/g)].map((m) => new URL(m[1]!).pathname);

/** GET /campaigns/{id}/links (decisions.md §13): clicks per link, counted from real clicks on tracked links. */
describe("campaign links", () => {
  let p: Project;
  let other: Project;
  let from: string;

  beforeAll(async () => {
    [p, other] = await Promise.all([newProject("campaign-links"), newProject("campaign-links-other")]);
    from = await verifiedSender(p.id, sharedPlatform().env);
  });

  it("counts clicks and unique clicks per URL; one URL placed twice counts its reader once", async () => {
    const [ann, bob] = [uniqueAddress("ann"), uniqueAddress("bob")];
    await createContacts(p.api, [ann, bob].map((email) => ({ email, subscribed: true })));
    const body = `<a href="https://a.example/">A</a> <a href="https://b.example/">B</a> <a href="https://a.example/">A again</a>`;
    const c = (await p.api.post("/campaigns", campaignBody(from, { body }))).body.data;
    expect((await p.api.post(`/campaigns/${c.id}/send`)).status).toBe(200);
    await waitForStatus(p.api, c.id, "SENT");
    const msgs = await waitFor(
      async () => {
        const m = await sinkMessagesTo(sharedPlatform().mailboxUrl, [ann, bob]);
        return m.length === 2 ? m : null;
      },
      { what: "both campaign emails in the sink" },
    );
    const linksOf = (to: string) => hrefs(msgs.find((m) => m.envelope.rcptTo[0]!.toLowerCase() === to.toLowerCase())!.html!);
    const [annA, annB, annA2] = linksOf(ann);
    const [bobA] = linksOf(bob);
    // Ann: A three times (through both of its places: the renderer may give one URL one token or two), B once; Bob: A once.
    for (const link of [annA!, annA!, annA2!, annB!, bobA!]) {
      const res = await p.anon.get(link);
      expect(res.status).toBe(302);
    }
    const links = await waitFor(
      async () => {
        const res = await p.api.get(`/campaigns/${c.id}/links`);
        expect(res.status).toBe(200);
        return res.body.data.reduce((n: number, l: { clicks: number }) => n + l.clicks, 0) === 5 ? res.body : null;
      },
      { what: "five clicks counted" },
    );
    expect(links).toEqual({
      data: [
        { url: "https://a.example/", clicks: 4, uniqueClicks: 2 },
        { url: "https://b.example/", clicks: 1, uniqueClicks: 1 },
      ],
    });
  });

  it("another project's campaign is 404, and so is an unknown id", async () => {
    const c = (await p.api.post("/campaigns", campaignBody(from))).body.data;
    expectError(await other.api.get(`/campaigns/${c.id}/links`), 404, "NOT_FOUND");
    expectError(await p.api.get("/campaigns/0197a000-0000-7000-8000-000000000000/links"), 404, "NOT_FOUND");
    expectError(await p.api.get("/campaigns/not-an-id/links"), 404, "NOT_FOUND");
  });

  it("a campaign without clicks answers an empty list, whatever its status", async () => {
    const c = (await p.api.post("/campaigns", campaignBody(from))).body.data;
    const res = await p.api.get(`/campaigns/${c.id}/links`);
    expect(res.status).toBe(200);
    expect(res.body).toEqual({ data: [] });
  });
});
