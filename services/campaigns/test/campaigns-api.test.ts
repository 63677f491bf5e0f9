import { beforeAll, describe, expect, it } from "vitest";
import { newProject, sharedPlatform } from "@mailroom/testkit/shared";
import { campaignBody, expectError, verifiedSender, waitForStatus } from "./helpers.js";

type Project = Awaited<ReturnType<typeof newProject>>;

describe("campaigns API", () => {
  let p: Project;
  let other: Project;
  let from: string;

  beforeAll(async () => {
    [p, other] = await Promise.all([newProject("campaigns-api"), newProject("campaigns-other")]);
    from = await verifiedSender(p.id, sharedPlatform().env);
  });

  const create = async (extra: Record<string, unknown> = {}) => {
    const res = await p.api.post("/campaigns", campaignBody(from, extra));
    expect(res.status, JSON.stringify(res.body)).toBe(200);
    return res.body.data;
  };

  it("creates a DRAFT and answers 200 {success, data} with the whole record", async () => {
    const res = await p.api.post("/campaigns", campaignBody(from, { description: "d", fromName: "News", replyTo: "reply@example.com" }));
    expect(res.status).toBe(200);
    expect(res.body.success).toBe(true);
    expect(res.body.data).toMatchObject({
      id: expect.any(String),
      name: "Spring news",
      description: "d",
      from,
      fromName: "News",
      replyTo: "reply@example.com",
      type: "ALL",
      segmentId: null,
      audienceFilter: null,
      status: "DRAFT",
      scheduledAt: null,
      sentAt: null,
      stats: { recipients: 0, sent: 0, delivered: 0, opened: 0, clicked: 0, bounced: 0, complained: 0, unsubscribed: 0, failed: 0 },
    });
    const got = await p.api.get(`/campaigns/${res.body.data.id}`);
    expect(got.status).toBe(200);
    expect(got.body).toEqual(res.body.data);
  });

  it("refuses a sender whose domain is not verified in the project (403), even one verified elsewhere", async () => {
    expectError(await p.api.post("/campaigns", campaignBody("news@unverified.example.com")), 403, "DOMAIN_NOT_VERIFIED");
    expectError(await other.api.post("/campaigns", campaignBody(from)), 403, "DOMAIN_NOT_VERIFIED");
  });

  it("checks the audience fields at create", async () => {
    const seg = await p.api.post("/campaigns", campaignBody(from, { audienceType: "SEGMENT" }));
    expectError(seg, 400, "VALIDATION_ERROR");
    expect(seg.body.details.map((d: any) => d.path)).toContain("segmentId");
    const filtered = await p.api.post("/campaigns", campaignBody(from, { audienceType: "FILTERED" }));
    expectError(filtered, 400, "VALIDATION_ERROR");
    expect(filtered.body.details.map((d: any) => d.path)).toContain("audienceFilter");
    const badFilter = await p.api.post("/campaigns", campaignBody(from, { audienceType: "FILTERED", audienceFilter: { logic: "XOR" } }));
    expectError(badFilter, 400, "VALIDATION_ERROR");
    expectError(await p.api.post("/campaigns", campaignBody(from, { audienceType: "EVERYONE" })), 400, "VALIDATION_ERROR");
    expectError(await p.api.post("/campaigns", { ...campaignBody(from), subject: "a\r\nBcc: x@example.com" }), 400, "VALIDATION_ERROR");
  });

  it("edits and deletes DRAFTs only; a sent campaign can still be read", async () => {
    const c = await create();
    const patched = await p.api.patch(`/campaigns/${c.id}`, { name: "Renamed", description: null });
    expect(patched.status).toBe(200);
    expect(patched.body).toMatchObject({ name: "Renamed", description: null, subject: c.subject });
    expectError(await p.api.patch(`/campaigns/${c.id}`, { from: "x@unverified.example.com" }), 403, "DOMAIN_NOT_VERIFIED");

    const scheduled = await p.api.post(`/campaigns/${c.id}/send`, { scheduledFor: new Date(Date.now() + 3_600_000).toISOString() });
    expect(scheduled.status).toBe(200);
    expectError(await p.api.patch(`/campaigns/${c.id}`, { name: "x" }), 409, "INVALID_STATE");
    expectError(await p.api.delete(`/campaigns/${c.id}`), 409, "INVALID_STATE");

    const sent = await p.api.post(`/campaigns/${c.id}/send`);
    expect(sent.status).toBe(200);
    expect(sent.body).toMatchObject({ success: true, data: { status: "SENDING" } });
    // No contacts in this project: the campaign is SENT as soon as its (empty) fan-out completes.
    const done = await waitForStatus(p.api, c.id, "SENT");
    expect(done.sentAt).not.toBeNull();
    expectError(await p.api.patch(`/campaigns/${c.id}`, { name: "x" }), 409, "INVALID_STATE");
    expectError(await p.api.delete(`/campaigns/${c.id}`), 409, "INVALID_STATE");
    expectError(await p.api.post(`/campaigns/${c.id}/send`), 409, "INVALID_STATE");
    expect((await p.api.get(`/campaigns/${c.id}`)).status).toBe(200);

    const draft = await create();
    expect((await p.api.delete(`/campaigns/${draft.id}`)).status).toBe(204);
    expectError(await p.api.get(`/campaigns/${draft.id}`), 404, "NOT_FOUND");
  });

  it("switching the audience type drops the field of the old type", async () => {
    const c = await create();
    expectError(await p.api.patch(`/campaigns/${c.id}`, { audienceType: "SEGMENT" }), 400, "VALIDATION_ERROR");
    const back = await p.api.patch(`/campaigns/${c.id}`, { audienceType: "ALL", segmentId: "00000000-0000-7000-8000-000000000000" });
    expect(back.status).toBe(200);
    expect(back.body).toMatchObject({ type: "ALL", segmentId: null, audienceFilter: null });
  });

  it("schedules in the future only, and cancel moves SCHEDULED back to DRAFT", async () => {
    const c = await create();
    const past = await p.api.post(`/campaigns/${c.id}/send`, { scheduledFor: new Date(Date.now() - 1000).toISOString() });
    expectError(past, 400, "VALIDATION_ERROR");
    expect(past.body.details[0].path).toBe("scheduledFor");
    expectError(await p.api.post(`/campaigns/${c.id}/send`, { scheduledFor: "tomorrow" }), 400, "VALIDATION_ERROR");
    expectError(await p.api.post(`/campaigns/${c.id}/cancel`), 409, "INVALID_STATE");

    const at = new Date(Date.now() + 3_600_000).toISOString();
    const scheduled = await p.api.post(`/campaigns/${c.id}/send`, { scheduledFor: at });
    expect(scheduled.body).toMatchObject({ success: true, data: { status: "SCHEDULED", scheduledAt: at } });
    const cancelled = await p.api.post(`/campaigns/${c.id}/cancel`);
    expect(cancelled.status).toBe(200);
    expect(cancelled.body).toMatchObject({ success: true, data: { status: "DRAFT", scheduledAt: null } });
    expect((await p.api.patch(`/campaigns/${c.id}`, { name: "editable again" })).status).toBe(200);
  });

  it("lists newest first in the page shape, filtered by status", async () => {
    const list = await p.api.get("/campaigns?limit=2");
    expect(list.status).toBe(200);
    expect(list.body).toMatchObject({ page: 1, pageSize: 2, total: expect.any(Number), totalPages: expect.any(Number) });
    expect(list.body.campaigns).toHaveLength(2);
    expect(list.body.totalPages).toBe(Math.ceil(list.body.total / 2));
    const second = await p.api.get("/campaigns?limit=2&cursor=2");
    expect(second.body.page).toBe(2);
    expect(second.body.campaigns[0].id).not.toBe(list.body.campaigns[0].id);
    const sent = await p.api.get("/campaigns?status=SENT");
    expect(sent.body.campaigns.length).toBeGreaterThan(0);
    expect(sent.body.campaigns.every((c: any) => c.status === "SENT")).toBe(true);
    expectError(await p.api.get("/campaigns?status=DONE"), 400, "VALIDATION_ERROR");
  });

  it("keeps projects apart: another project's campaign is 404 everywhere and never listed", async () => {
    const c = await create();
    for (const res of [
      await other.api.get(`/campaigns/${c.id}`),
      await other.api.patch(`/campaigns/${c.id}`, { name: "x" }),
      await other.api.delete(`/campaigns/${c.id}`),
      await other.api.post(`/campaigns/${c.id}/send`),
      await other.api.post(`/campaigns/${c.id}/cancel`),
      await other.api.post(`/campaigns/${c.id}/test`, { email: "t@example.com" }),
    ]) {
      expectError(res, 404, "NOT_FOUND");
    }
    expect((await other.api.get("/campaigns")).body.total).toBe(0);
    expectError(await p.api.get("/campaigns/not-a-uuid"), 404, "NOT_FOUND");
    expect((await p.api.get(`/campaigns/${c.id}`)).body.status).toBe("DRAFT");
  });
});
