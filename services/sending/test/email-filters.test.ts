import { randomBytes } from "node:crypto";
import { beforeAll, describe, expect, it } from "vitest";
import { newProject, sharedPlatform, waitFor } from "@mailroom/testkit/shared";
import { verifiedDomain } from "./helpers.js";

type Project = Awaited<ReturnType<typeof newProject>>;
const qs = (o: Record<string, string>) => new URLSearchParams(o).toString();

describe("GET /emails?status=&to=", () => {
  let p: Project;
  let other: Project;
  let domain: string;
  // a tag no other test's addresses hold, so substring matches are this test's own
  const tag = randomBytes(4).toString("hex");
  const addr = {
    plain: `shop.${tag}@example.com`,
    underscore: `a_b.${tag}@example.com`,
    upper: `Mixed.${tag}.CASE@example.com`,
    dotted: `axb.${tag}@example.net`,
  };

  const list = async (api: Project["api"], o: Record<string, string>) => {
    const r = await api.get(`/emails?${qs(o)}`);
    expect(r.status).toBe(200);
    return r.body as { data: Array<{ id: string; to: string; status: string }>; cursor: string | null; hasMore: boolean };
  };
  const toOf = async (o: Record<string, string>) => (await list(p.api, o)).data.map((e) => e.to.toLowerCase()).sort();

  beforeAll(async () => {
    [p, other] = await Promise.all([newProject("filters"), newProject("filters-other")]);
    domain = (await verifiedDomain(p.api, sharedPlatform().zonesFile)).domain;
    const otherDomain = (await verifiedDomain(other.api, sharedPlatform().zonesFile)).domain;
    const ids: string[] = [];
    for (const to of Object.values(addr)) {
      const r = await p.api.post("/v1/send", { to, from: `news@${domain}`, subject: "Hi", body: "<p>Hi</p>" });
      expect(r.status).toBe(200);
      ids.push(r.body.data.emails[0].email);
    }
    // the other project mails an address holding the same tag: it never shows up in p's lists
    expect((await other.api.post("/v1/send", { to: `theirs.${tag}@example.com`, from: `news@${otherDomain}`, subject: "Hi", body: "<p>Hi</p>" })).status).toBe(200);
    for (const id of ids) await waitFor(async () => ((await p.api.get(`/emails/${id}`)).body.status !== "QUEUED" ? true : null), { what: "sent" });
  });

  it("matches a substring of the recipient in any case, with % _ and \\ taken literally", async () => {
    expect(await toOf({ to: tag })).toEqual(Object.values(addr).map((a) => a.toLowerCase()).sort());
    expect(await toOf({ to: `MIXED.${tag}.case` })).toEqual([addr.upper.toLowerCase()]);
    expect(await toOf({ to: "example.NET" })).toEqual([addr.dotted]);
    // unescaped, `_` would match any character (axb) and `%` everything
    expect(await toOf({ to: `a_b.${tag}` })).toEqual([addr.underscore]);
    expect(await toOf({ to: "%" })).toEqual([]);
    expect(await toOf({ to: "%%" })).toEqual([]);
    expect(await toOf({ to: "\\" })).toEqual([]);
    expect(await toOf({ to: "_" })).toEqual([addr.underscore]);
    expect(await toOf({ to: "ü@ö" })).toEqual([]);
    expect(await toOf({ to: "💌" })).toEqual([]);
    expect(await toOf({ to: "'; drop table emails; --" })).toEqual([]);
    expect(await toOf({ to: `  ${tag}  ` })).toHaveLength(4);
    expect(await toOf({ to: "x".repeat(254) })).toEqual([]);
  });

  it("refuses an empty, over-long or unknown filter with the Error object", async () => {
    const bad: Array<Record<string, string>> = [{ to: "" }, { to: "   " }, { to: "x".repeat(255) }, { status: "SENDING" }, { status: "sent" }];
    for (const o of bad) {
      const r = await p.api.get(`/emails?${qs(o)}`);
      expect(r.status).toBe(400);
      expect(r.body).toMatchObject({ code: 400, error: "VALIDATION_ERROR" });
      expect(r.body.details[0].path).toBe(`query.${Object.keys(o)[0]}`);
    }
  });

  it("combines status and to with each other, with the other filters and with cursor paging", async () => {
    const sent = (await list(p.api, { to: tag })).data;
    const statuses = new Set(sent.map((e) => e.status));
    expect(statuses.size).toBeGreaterThan(0);
    const status = sent[0]!.status;
    const same = sent.filter((e) => e.status === status).map((e) => e.to.toLowerCase()).sort();
    expect(await toOf({ to: tag, status })).toEqual(same);
    expect(await toOf({ to: tag, status: "BOUNCED" })).toEqual([]);
    const contactOf = (await p.api.get(`/emails/${sent[0]!.id}`)).body.contactId as string;
    expect(await toOf({ to: tag, contactId: contactOf })).toEqual([sent[0]!.to.toLowerCase()]);
    expect(await toOf({ to: tag, campaignId: "0190a3c2-0000-7000-8000-000000000001" })).toEqual([]);

    // one at a time, newest first, each once
    const seen: string[] = [];
    let cursor: string | null = null;
    do {
      const page = await list(p.api, { to: tag, status, limit: "1", ...(cursor ? { cursor } : {}) });
      expect(page.data.length).toBeLessThanOrEqual(1);
      seen.push(...page.data.map((e) => e.id));
      cursor = page.hasMore ? page.cursor : null;
    } while (cursor);
    expect(seen).toEqual(sent.filter((e) => e.status === status).map((e) => e.id));
  });

  it("never shows another project's emails, whatever the filter", async () => {
    expect(await toOf({ to: `theirs.${tag}` })).toEqual([]);
    const theirs = await list(other.api, { to: tag });
    expect(theirs.data.map((e) => e.to)).toEqual([`theirs.${tag}@example.com`]);
    expect((await list(other.api, { to: `shop.${tag}` })).data).toEqual([]);
    expect((await list(other.api, { status: theirs.data[0]!.status, to: "example" })).data.map((e) => e.id)).toEqual([theirs.data[0]!.id]);
  });
});
