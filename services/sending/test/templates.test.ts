import { beforeAll, describe, expect, it } from "vitest";
import { newProject } from "@mailroom/testkit/shared";
import { verifiedDomain } from "./helpers.js";

type Project = Awaited<ReturnType<typeof newProject>>;

describe("templates", () => {
  let p: Project;
  let domain: string;
  beforeAll(async () => {
    p = await newProject("templates");
    domain = (await verifiedDomain(p.api)).domain;
  });

  it("creates, reads, updates and deletes a template", async () => {
    const created = await p.api.post("/templates", { name: "Welcome", subject: "Hi {{ name }}", body: "<p>Hello</p>", type: "TRANSACTIONAL" });
    expect(created.status).toBe(201);
    expect(created.body).toMatchObject({ name: "Welcome", type: "TRANSACTIONAL", from: null, fromName: null, replyTo: null });
    const id = created.body.id;
    expect((await p.api.get(`/templates/${id}`)).body).toEqual(created.body);

    const patched = await p.api.patch(`/templates/${id}`, { from: `news@${domain}`, fromName: "News", replyTo: "help@example.com" });
    expect(patched.status).toBe(200);
    expect(patched.body).toMatchObject({ name: "Welcome", from: `news@${domain}`, fromName: "News", replyTo: "help@example.com" });

    expect((await p.api.delete(`/templates/${id}`)).status).toBe(204);
    expect((await p.api.get(`/templates/${id}`)).status).toBe(404);
    expect((await p.api.delete(`/templates/${id}`)).status).toBe(404);
  });

  it("lists in the page shape with type and search filters", async () => {
    const q = await newProject("templates-list");
    for (let i = 0; i < 3; i++) {
      await q.api.post("/templates", { name: `Receipt ${i}`, subject: "Your receipt", body: "x", type: "TRANSACTIONAL" });
    }
    await q.api.post("/templates", { name: "Newsletter", subject: "This week", body: "x", type: "MARKETING" });

    const page1 = await q.api.get("/templates?limit=2");
    expect(page1.body).toMatchObject({ total: 4, page: 1, pageSize: 2, totalPages: 2 });
    expect(page1.body.templates).toHaveLength(2);
    const page2 = await q.api.get("/templates?limit=2&cursor=2");
    expect(page2.body.page).toBe(2);
    expect(page2.body.templates).toHaveLength(2);
    expect((await q.api.get("/templates?limit=2&page=2")).body.templates.map((t: any) => t.id)).toEqual(page2.body.templates.map((t: any) => t.id));

    expect((await q.api.get("/templates?type=MARKETING")).body).toMatchObject({ total: 1, templates: [{ name: "Newsletter" }] });
    expect((await q.api.get("/templates?search=receipt")).body.total).toBe(3);
    expect((await q.api.get("/templates?search=THIS%20WEEK")).body.total).toBe(1);
    expect((await q.api.get("/templates?search=%25")).body.total).toBe(0);
  });

  it("keeps templates to their project", async () => {
    const other = await newProject("templates-other");
    const t = await p.api.post("/templates", { name: "Mine", subject: "s", body: "b", type: "MARKETING" });
    expect((await other.api.get(`/templates/${t.body.id}`)).status).toBe(404);
    expect((await other.api.patch(`/templates/${t.body.id}`, { name: "x" })).status).toBe(404);
    expect((await other.api.delete(`/templates/${t.body.id}`)).status).toBe(404);
    expect((await p.api.get("/templates/not-a-uuid")).status).toBe(404);
  });

  it("refuses Liquid syntax errors and senders on unverified domains", async () => {
    const bad = await p.api.post("/templates", { name: "Bad", subject: "s", body: "{% if %}", type: "TRANSACTIONAL" });
    expect(bad.status).toBe(400);
    expect(bad.body.details[0].path).toBe("body");
    const from = await p.api.post("/templates", { name: "F", subject: "s", body: "b", type: "TRANSACTIONAL", from: "a@unverified.example" });
    expect(from.status).toBe(403);
    expect(from.body.error).toBe("DOMAIN_NOT_VERIFIED");
  });

  it("answers 409 INVALID_STATE while a workflow step uses the template, and deletes it once the step is gone", async () => {
    const t = await p.api.post("/templates", { name: "Used", subject: "s", body: "b", type: "TRANSACTIONAL" });
    const wf = await p.api.post("/workflows", { name: "Uses a template", eventName: "signup" });
    expect(wf.status).toBe(201);
    const step = await p.api.post(`/workflows/${wf.body.id}/steps`, { type: "SEND_EMAIL", config: { templateId: t.body.id } });
    expect(step.status).toBe(201);
    const res = await p.api.delete(`/templates/${t.body.id}`);
    expect(res.status).toBe(409);
    expect(res.body.error).toBe("INVALID_STATE");
    expect((await p.api.get(`/templates/${t.body.id}`)).status).toBe(200);
    expect((await p.api.delete(`/workflows/${wf.body.id}/steps/${step.body.id}`)).status).toBe(204);
    expect((await p.api.delete(`/templates/${t.body.id}`)).status).toBe(204);
  });

});
