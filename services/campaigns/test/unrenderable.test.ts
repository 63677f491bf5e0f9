import { beforeAll, describe, expect, it } from "vitest";
import { newProject, sharedPlatform } from "@mailroom/testkit/shared";
import { campaignBody, createContacts, expectError, sinkMessagesTo, uniqueAddress, verifiedSender, waitForStatus } from "./helpers.js";

type Project = Awaited<ReturnType<typeof newProject>>;

/**
 * A campaign whose body can never be rendered ends: each recipient's email is FAILED (counted in
 * `stats.failed`) and the campaign becomes SENT, instead of its fan-out retrying for ever.
 */
describe("a campaign whose body cannot render", () => {
  let p: Project;
  let from: string;

  beforeAll(async () => {
    p = await newProject("unrenderable");
    from = await verifiedSender(p.id, sharedPlatform().env);
  });

  async function sendToNew(body: string, count: number) {
    // each campaign goes to the contacts made for it: the project's earlier ones unsubscribe first
    const earlier = (await p.api.get("/contacts?limit=100")).body.data as Array<{ id: string }>;
    for (const c of earlier) await p.api.patch(`/contacts/${c.id}`, { subscribed: false });
    const people = Array.from({ length: count }, () => uniqueAddress("unrenderable"));
    await createContacts(p.api, people.map((email) => ({ email, subscribed: true })));
    const created = await p.api.post("/campaigns", campaignBody(from, { body }));
    expect(created.status, JSON.stringify(created.body)).toBe(200);
    const id = created.body.data.id as string;
    expect((await p.api.post(`/campaigns/${id}/send`, {})).status).toBe(200);
    return { id, people, done: await waitForStatus(p.api, id, "SENT", 30_000) };
  }

  it("ends SENT with every email FAILED when each render runs past its bounds", async () => {
    const { id, people, done } = await sendToNew("{% for i in (1..100000) %}{% for j in (1..1000) %}{% endfor %}{% endfor %}", 6);
    expect(done.stats).toMatchObject({ recipients: 6, failed: 6, sent: 0 });
    const emails = (await p.api.get(`/emails?campaignId=${id}&limit=100`)).body.data as Array<{ status: string; to: string }>;
    expect(emails.map((e) => e.to).sort()).toEqual([...people].sort());
    expect(emails.every((e) => e.status === "FAILED")).toBe(true);
    expect(await sinkMessagesTo(sharedPlatform().mailboxUrl, people)).toEqual([]);
  });

  it("ends SENT with every recipient failed when the body does not parse", async () => {
    const { done, people } = await sendToNew("<p>{% if %}</p>", 3);
    expect(done.stats).toMatchObject({ recipients: 3, failed: 3, sent: 0 });
    expect(await sinkMessagesTo(sharedPlatform().mailboxUrl, people)).toEqual([]);
  });

  it("refuses a body over 1 MB (413) or with more tags than a parse may take (400)", async () => {
    const big = await p.api.post("/campaigns", campaignBody(from, { body: "x".repeat(1024 * 1024 + 1) }));
    expectError(big, 413, "PAYLOAD_TOO_LARGE");
    expect(big.body.details).toEqual([{ path: "body", message: "must be at most 1048576 bytes of UTF-8" }]);
    const draft = await p.api.post("/campaigns", campaignBody(from));
    expectError(await p.api.patch(`/campaigns/${draft.body.data.id}`, { body: "é".repeat(512 * 1024 + 1) }), 413, "PAYLOAD_TOO_LARGE");
    expect((await p.api.get(`/campaigns/${draft.body.data.id}`)).body.body).toBe(campaignBody(from).body);
    const braces = await p.api.post("/campaigns", campaignBody(from, { body: "{{".repeat(100_000) }));
    expectError(braces, 400, "VALIDATION_ERROR");
    expect(braces.body.details).toEqual([{ path: "body", message: "must have at most 5000 Liquid tags and outputs" }]);
  });
});
