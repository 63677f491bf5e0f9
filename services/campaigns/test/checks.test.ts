import { beforeAll, describe, expect, it } from "vitest";
import { addZones, newProject, RSPAMD_MARKERS, sharedPlatform } from "@mailroom/testkit/shared";
import { campaignBody, expectError, uniqueDomain, verifiedSender } from "./helpers.js";

type Project = Awaited<ReturnType<typeof newProject>>;
interface Check {
  check: string;
  status: "pass" | "warn" | "fail";
  detail: string;
}

const ALL = ["spf", "dkim", "dmarc", "one_click_unsubscribe", "unsubscribe_link", "html_size", "image_alt", "private_links", "spam_score"];
const CLEAN_BODY =
  '<p>Hi {{ firstName ?? "friend" }}</p><img src="https://cdn.example.com/logo.png" alt="Acme"><a href="https://example.com/offer">Offer</a>' +
  '<p><a href="{{ unsubscribeUrl }}">Unsubscribe</a></p>';

/** A sending domain of the project with its DKIM, SPF and DMARC records published in the test DNS, verified. */
async function publishedSender(p: Project, dmarc = "v=DMARC1; p=quarantine; rua=mailto:dmarc@example.com"): Promise<string> {
  const domain = uniqueDomain();
  const created = await p.api.post("/domains", { domain });
  expect(created.status, JSON.stringify(created.body)).toBe(201);
  const record = (purpose: string) => created.body.records.find((r: { purpose: string }) => r.purpose === purpose);
  addZones(sharedPlatform().zonesFile, {
    [record("dkim").name]: { TXT: [record("dkim").value] },
    [domain]: { TXT: [record("spf").value] },
    [`_dmarc.${domain}`]: { TXT: [dmarc] },
  });
  expect((await p.api.post(`/domains/${created.body.id}/verify`)).body.status).toBe("VERIFIED");
  return `news@${domain}`;
}

async function checksOf(p: Project, from: string, extra: Record<string, unknown> = {}): Promise<Record<string, Check>> {
  const created = await p.api.post("/campaigns", campaignBody(from, { body: CLEAN_BODY, ...extra }));
  expect(created.status, JSON.stringify(created.body)).toBe(200);
  const res = await p.api.get(`/campaigns/${created.body.data.id}/checks`);
  expect(res.status, JSON.stringify(res.body)).toBe(200);
  return Object.fromEntries((res.body as Check[]).map((c) => [c.check, c]));
}

const statuses = (checks: Record<string, Check>) => Object.fromEntries(Object.entries(checks).map(([k, c]) => [k, c.status]));

/** GET /campaigns/{id}/checks (decisions.md §18) through the whole platform: live DNS, rendering, rspamd. */
describe("campaign pre-send checks", () => {
  let p: Project;
  let other: Project;
  let clean: string;

  beforeAll(async () => {
    [p, other] = await Promise.all([newProject("campaign-checks"), newProject("campaign-checks-other")]);
    clean = await publishedSender(p);
  });

  it("a clean campaign from a domain with its records published passes every check, in a fixed order", async () => {
    const created = await p.api.post("/campaigns", campaignBody(clean, { body: CLEAN_BODY, subject: "Spring offer" }));
    const res = await p.api.get(`/campaigns/${created.body.data.id}/checks`);
    expect(res.status).toBe(200);
    expect(res.body.map((c: Check) => c.check)).toEqual(ALL);
    for (const c of res.body as Check[]) {
      expect(c.status, `${c.check}: ${c.detail}`).toBe("pass");
      expect(c.detail.length).toBeGreaterThan(0);
    }
    const byName = Object.fromEntries((res.body as Check[]).map((c) => [c.check, c]));
    expect(byName.dmarc!.detail).toContain("p=quarantine");
    expect(byName.spam_score!.detail).toContain("no action");
    // rspamd was given the message as it would go out: Mailroom's one-click headers included
    const got = (await (await fetch(`${sharedPlatform().rspamdUrl}/requests`)).json()) as Array<{ message: string; headers: Record<string, string> }>;
    const sent = got.find((r) => r.headers.from === clean);
    expect(sent?.message).toContain("List-Unsubscribe-Post: List-Unsubscribe=One-Click");
    expect(sent?.message).toContain("Subject: Spring offer");
  });

  it("a domain without SPF, DKIM and DMARC in DNS fails all three, and one-click is only a warning without DKIM", async () => {
    const bare = await verifiedSender(p.id, sharedPlatform().env); // verified by the operator: nothing published
    const checks = await checksOf(p, bare);
    expect(statuses(checks)).toMatchObject({ spf: "fail", dkim: "fail", dmarc: "fail", one_click_unsubscribe: "warn", unsubscribe_link: "pass" });
    expect(checks.spf!.detail).toContain("include:bounces.mailroom.test");
    expect(checks.dkim!.detail).toContain("._domainkey.");
    expect(checks.dmarc!.detail).toContain("No DMARC record");
  });

  it("SPF without Mailroom's include warns; DMARC p=none passes with advice", async () => {
    const domainSender = await publishedSender(p, "v=DMARC1; p=none;");
    const domain = domainSender.split("@")[1]!;
    addZones(sharedPlatform().zonesFile, { [domain]: { TXT: ["v=spf1 include:_spf.example.net ~all"] } });
    const checks = await checksOf(p, domainSender);
    expect(statuses(checks)).toMatchObject({ spf: "warn", dkim: "pass", dmarc: "pass" });
    expect(checks.dmarc!.detail).toContain("p=none only monitors");
  });

  it("a resolver that never answers costs the lookup's bound, and counts as nothing published", async () => {
    const sender = await publishedSender(p);
    addZones(sharedPlatform().zonesFile, { [`_dmarc.${sender.split("@")[1]}`]: { behaviour: "timeout" } });
    const started = Date.now();
    const checks = await checksOf(p, sender);
    expect(checks.dmarc).toMatchObject({ status: "fail", detail: expect.stringContaining("No DMARC record") });
    expect(statuses(checks)).toMatchObject({ spf: "pass", dkim: "pass" });
    expect(Date.now() - started).toBeLessThan(8000);
  });

  it("a marketing body without an unsubscribe link fails; {{ manageUrl }} is enough", async () => {
    const without = await checksOf(p, clean, { body: '<p>News</p><a href="https://example.com/">site</a>' });
    expect(without.unsubscribe_link).toMatchObject({ status: "fail", detail: expect.stringContaining("{{ unsubscribeUrl }}") });
    const manage = await checksOf(p, clean, { body: '<p>News</p><a href="{{ manageUrl }}">Preferences</a>' });
    expect(manage.unsubscribe_link!.status).toBe("pass");
  });

  it("a 120 KB body fails html_size", async () => {
    const checks = await checksOf(p, clean, { body: `${CLEAN_BODY}<p>${"x".repeat(120 * 1024)}</p>` });
    expect(checks.html_size).toMatchObject({ status: "fail", detail: expect.stringContaining("102 KB") });
    expect(statuses(checks)).toMatchObject({ image_alt: "pass", private_links: "pass", unsubscribe_link: "pass" });
  });

  it("images without alt text warn with their count", async () => {
    const checks = await checksOf(p, clean, { body: `${CLEAN_BODY}<img src="https://cdn.example.com/a.png"><img src="https://cdn.example.com/b.png" alt="">` });
    expect(checks.image_alt).toMatchObject({ status: "warn", detail: expect.stringMatching(/^2 of 3 images/) });
  });

  it("links to loopback and private addresses fail, each named", async () => {
    const checks = await checksOf(p, clean, { body: `${CLEAN_BODY}<a href="http://127.0.0.1/">local</a><img src="http://10.0.0.1/pixel.png" alt="x">` });
    expect(checks.private_links!.status).toBe("fail");
    expect(checks.private_links!.detail).toContain("127.0.0.1");
    expect(checks.private_links!.detail).toContain("10.0.0.1");
  });

  it("rspamd's action decides the spam score: reject fails, add header warns, no answer warns within its bound", async () => {
    const reject = await checksOf(p, clean, { body: `${CLEAN_BODY}<p>${RSPAMD_MARKERS.reject}</p>` });
    expect(reject.spam_score).toMatchObject({ status: "fail", detail: expect.stringContaining("21.5 of 15 (action: reject)") });
    const header = await checksOf(p, clean, { body: `${CLEAN_BODY}<p>${RSPAMD_MARKERS.addHeader}</p>` });
    expect(header.spam_score!.status).toBe("warn");
    const started = Date.now();
    const slow = await checksOf(p, clean, { body: `${CLEAN_BODY}<p>${RSPAMD_MARKERS.slow}</p>` });
    expect(slow.spam_score).toMatchObject({ status: "warn", detail: expect.stringContaining("timed out") });
    expect(Date.now() - started).toBeLessThan(6000);
  });

  it("an A/B campaign checks each variant and names the one that fails", async () => {
    const checks = await checksOf(p, clean, {
      variants: [{ subject: "A" }, { subject: "B", body: "<p>No way out</p>" }],
      abTest: { samplePercent: 20, metric: "opened", waitMinutes: 60 },
    });
    expect(checks.unsubscribe_link).toMatchObject({ status: "fail", detail: expect.stringMatching(/^variant 2: /) });
    expect(checks.html_size!.status).toBe("pass");
  });

  it("another project's campaign is 404, and so is an unknown id", async () => {
    const c = (await p.api.post("/campaigns", campaignBody(clean))).body.data;
    expectError(await other.api.get(`/campaigns/${c.id}/checks`), 404, "NOT_FOUND");
    expectError(await p.api.get("/campaigns/00000000-0000-4000-8000-00000000abcd/checks"), 404, "NOT_FOUND");
    expectError(await p.api.get("/campaigns/not-an-id/checks"), 404, "NOT_FOUND");
  });
});
