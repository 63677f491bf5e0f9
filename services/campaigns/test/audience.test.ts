import { beforeAll, describe, expect, it } from "vitest";
import { newProject, sharedPlatform } from "@mailroom/testkit/shared";
import { campaignBody, createContacts, expectError, sinkMessagesTo, uniqueAddress, verifiedSender, waitForStatus } from "./helpers.js";

type Project = Awaited<ReturnType<typeof newProject>>;

const planIs = (plan: string) => ({ logic: "AND", groups: [{ filters: [{ field: "data.plan", operator: "equals", value: plan }] }] });

/**
 * SEGMENT and FILTERED audiences: only subscribed contacts inside the segment or matching the filter
 * get the campaign, each exactly once. Each campaign runs in its own project, so the sink can tell.
 */
describe("campaign audiences", () => {
  const mailbox = () => sharedPlatform().mailboxUrl;

  async function project(name: string) {
    const p = await newProject(name);
    const from = await verifiedSender(p.id, sharedPlatform().env);
    const people = {
      proYes: [uniqueAddress("pro"), uniqueAddress("pro"), uniqueAddress("pro")],
      freeYes: [uniqueAddress("free"), uniqueAddress("free")],
      proNo: [uniqueAddress("pro-unsub"), uniqueAddress("pro-unsub")],
    };
    await createContacts(p.api, [
      ...people.proYes.map((email) => ({ email, subscribed: true, data: { plan: "pro" } })),
      ...people.freeYes.map((email) => ({ email, subscribed: true, data: { plan: "free" } })),
      ...people.proNo.map((email) => ({ email, subscribed: false, data: { plan: "pro" } })),
    ]);
    return { p, from, people, everyone: Object.values(people).flat() };
  }

  async function sendAndCollect(p: Project, body: Record<string, unknown>, everyone: string[]) {
    const created = await p.api.post("/campaigns", body);
    expect(created.status, JSON.stringify(created.body)).toBe(200);
    const c = created.body.data;
    expect((await p.api.post(`/campaigns/${c.id}/send`)).status).toBe(200);
    const done = await waitForStatus(p.api, c.id, "SENT");
    const msgs = await sinkMessagesTo(mailbox(), everyone);
    return { done, recipients: msgs.map((m) => m.envelope.rcptTo[0]!.toLowerCase()).sort() };
  }

  for (const trackMembership of [false, true]) {
    it(`SEGMENT (trackMembership ${trackMembership}): the segment's subscribed members only`, async () => {
      const { p, from, people, everyone } = await project(`segment-${trackMembership}`);
      const seg = await p.api.post("/segments", { name: `Pro ${trackMembership}`, filters: planIs("pro"), trackMembership });
      expect(seg.status, JSON.stringify(seg.body)).toBe(201);
      const { done, recipients } = await sendAndCollect(p, campaignBody(from, { audienceType: "SEGMENT", segmentId: seg.body.id }), everyone);
      expect(done).toMatchObject({ type: "SEGMENT", segmentId: seg.body.id, stats: { recipients: 3, sent: 3 } });
      expect(recipients).toEqual(people.proYes.map((e) => e.toLowerCase()).sort());
    });
  }

  it("FILTERED: the subscribed contacts matching the filter only", async () => {
    const { p, from, people, everyone } = await project("filtered");
    const { done, recipients } = await sendAndCollect(p, campaignBody(from, { audienceType: "FILTERED", audienceFilter: planIs("free") }), everyone);
    expect(done).toMatchObject({ type: "FILTERED", audienceFilter: planIs("free"), stats: { recipients: 2, sent: 2 } });
    expect(recipients).toEqual(people.freeYes.map((e) => e.toLowerCase()).sort());
  });

  describe("checked at create", () => {
    let p: Project;
    let from: string;
    let foreignSegment: string;
    beforeAll(async () => {
      p = await newProject("audience-checks");
      from = await verifiedSender(p.id, sharedPlatform().env);
      const other = await newProject("audience-other");
      foreignSegment = (await other.api.post("/segments", { name: "Theirs", filters: planIs("pro") })).body.id;
    });

    it("a segment of another project (or none) is a 400 on segmentId", async () => {
      for (const segmentId of [foreignSegment, "01890a5d-ac96-774b-bcce-b302099a8057"]) {
        const res = await p.api.post("/campaigns", campaignBody(from, { audienceType: "SEGMENT", segmentId }));
        expectError(res, 400, "VALIDATION_ERROR");
        expect(res.body.details.map((d: any) => d.path)).toEqual(["segmentId"]);
      }
    });

    it("a filter naming another project's segment, or an unknown operator, is a 400 under audienceFilter", async () => {
      const foreign = {
        logic: "AND",
        groups: [{ filters: [{ field: `segment.${foreignSegment}`, operator: "memberOfSegment" }] }],
      };
      const res = await p.api.post("/campaigns", campaignBody(from, { audienceType: "FILTERED", audienceFilter: foreign }));
      expectError(res, 400, "VALIDATION_ERROR");
      expect(res.body.details[0].path).toMatch(/^audienceFilter\./);
      const bad = { logic: "AND", groups: [{ filters: [{ field: "data.plan", operator: "isAbout", value: "pro" }] }] };
      const res2 = await p.api.post("/campaigns", campaignBody(from, { audienceType: "FILTERED", audienceFilter: bad }));
      expectError(res2, 400, "VALIDATION_ERROR");
      expect(res2.body.details[0].path).toMatch(/^audienceFilter\./);
    });
  });
});
