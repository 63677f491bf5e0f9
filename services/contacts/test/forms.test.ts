import { randomUUID } from "node:crypto";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { FORM_HIDDEN, wireNames } from "@mailroom/contracts";
import { addZones, apiClient, mailboxMessages, newProject, openDrain, sharedPlatform, type Drain } from "@mailroom/testkit/shared";
import { signRenderTime } from "../src/domain/forms.js";
import { expectError } from "./helpers.js";

/**
 * Signup forms end to end through the gateway (decisions.md §17): the /forms API, the hosted page
 * without JavaScript, and the defences, each of which must leave no trace. Addresses are at a
 * domain of this file with an MX record on the test DNS server, so the verify service accepts them.
 */
type Project = Awaited<ReturnType<typeof newProject>>;
let p: Project;
let other: Project;
let drain: Drain;
const domain = `forms-${randomUUID().slice(0, 8)}.example`;
/** A subdomain of a disposable provider, with mail servers: refused for being disposable alone. */
const disposable = `f${randomUUID().slice(0, 8)}.mailinator.com`;
const email = (tag: string) => `${tag}-${randomUUID().slice(0, 8)}@${domain}`;
const names = wireNames(sharedPlatform().prefix);
const secret = sharedPlatform().env.MAILROOM_SECRET!;

const FIELDS = [
  { key: "email", label: "Email", type: "email", required: true },
  { key: "firstName", label: "First name", type: "text", required: false },
  { key: "plan", label: "Plan", type: "select", required: false, options: ["free", "pro"] },
  { key: "news", label: "Send me news", type: "checkbox", required: false },
];

beforeAll(async () => {
  addZones(sharedPlatform().zonesFile, {
    [domain]: { MX: [{ exchange: `mx.${domain}`, priority: 10 }], A: ["192.0.2.10"] },
    [disposable]: { MX: [{ exchange: `mx.${disposable}`, priority: 10 }], A: ["192.0.2.11"] },
  });
  [p, other, drain] = await Promise.all([newProject("forms"), newProject("forms-other"), openDrain()]);
});
afterAll(() => drain?.close());

/** The hidden fields of a page rendered `msAgo` ago, signed with the platform's secret as the page signs them. */
const rendered = (formId: string, msAgo = 3000) => {
  const at = Date.now() - msAgo;
  return { [FORM_HIDDEN.renderedAt]: String(at), [FORM_HIDDEN.signature]: signRenderTime(secret, formId, at), [FORM_HIDDEN.honeypot]: "" };
};
const anon = () => apiClient(sharedPlatform().url);
const postForm = (formId: string, fields: Record<string, string>, headers: Record<string, string> = {}) =>
  anon().post(`/f/${formId}`, new URLSearchParams(fields).toString(), { "content-type": "application/x-www-form-urlencoded", ...headers });
const contactByEmail = async (project: Project, address: string) => {
  const page = await project.api.get(`/contacts?search=${encodeURIComponent(address)}`);
  return (page.body.data as Array<{ id: string; email: string; subscribed: boolean; data: Record<string, unknown>; topics: Record<string, boolean> }>).find(
    (c) => c.email === address,
  );
};
/** Every pipeline a submission sets off: the outboxes, then the workflow trigger consumer. */
const settled = () => drain.through(names.consumers.workflowsTriggers);

async function newForm(project: Project, extra: Record<string, unknown> = {}) {
  const res = await project.api.post("/forms", { name: "Newsletter", fields: FIELDS, successMessage: "Welcome aboard!", ...extra });
  expect(res.status, JSON.stringify(res.body)).toBe(201);
  return res.body as { id: string; submissions: number };
}

describe("/forms", () => {
  it("creates, lists, reads, updates and deletes a form", async () => {
    const topic = (await p.api.post("/topics", { name: "Product news" })).body.id as string;
    const created = await p.api.post("/forms", { name: "Signup", fields: FIELDS, topicIds: [topic], redirectUrl: "https://example.org/thanks" });
    expect(created.status).toBe(201);
    expect(created.body).toMatchObject({ name: "Signup", topicIds: [topic], redirectUrl: "https://example.org/thanks", successMessage: "Thanks for signing up!", submissions: 0 });
    expect(created.body.fields[1]).toEqual(FIELDS[1]);
    const id = created.body.id as string;
    expect((await p.api.get("/forms")).body.map((f: { id: string }) => f.id)).toContain(id);
    expect((await p.api.get(`/forms/${id}`)).body).toEqual(created.body);
    const updated = await p.api.patch(`/forms/${id}`, { name: "Signup 2", redirectUrl: null, successMessage: "Done" });
    expect(updated.body).toMatchObject({ name: "Signup 2", redirectUrl: null, successMessage: "Done", fields: created.body.fields });
    expect((await p.api.delete(`/forms/${id}`)).status).toBe(204);
    expectError(await p.api.get(`/forms/${id}`), 404, "NOT_FOUND");
    expectError(await anon().get(`/f/${id}`), 404, "NOT_FOUND");
  });

  it("refuses bad input with the Error object and changes nothing", async () => {
    const form = await newForm(p);
    const bad = async (body: unknown, path: string) => {
      const res = await p.api.post("/forms", body);
      expectError(res, 400, "VALIDATION_ERROR");
      expect(res.body.details.map((d: { path: string }) => d.path)).toContain(path);
    };
    await bad({ name: "x", fields: [{ key: "name", label: "Name", type: "text", required: true }] }, "fields");
    await bad({ name: "x", fields: [...FIELDS, { key: "firstName", label: "Again", type: "text" }] }, "fields.4.key");
    await bad({ name: "x", fields: [FIELDS[0], { key: "plan", label: "Plan", type: "select" }] }, "fields.1.options");
    await bad({ name: "x", fields: [FIELDS[0], { key: "mr_t", label: "Sneaky", type: "text" }] }, "fields.1.key");
    await bad({ name: "x", fields: FIELDS, redirectUrl: "javascript:alert(1)" }, "redirectUrl");
    await bad({ name: "", fields: FIELDS }, "name");
    await bad({ name: "x", fields: FIELDS, topicIds: [randomUUID()] }, "topicIds.0");
    expectError(await p.api.patch(`/forms/${form.id}`, { fields: [] }), 400, "VALIDATION_ERROR");
    expect((await p.api.get(`/forms/${form.id}`)).body.fields).toEqual(FIELDS);
  });

  it("answers 404 for another project's form", async () => {
    const form = await newForm(p);
    expectError(await other.api.get(`/forms/${form.id}`), 404, "NOT_FOUND");
    expectError(await other.api.patch(`/forms/${form.id}`, { name: "mine" }), 404, "NOT_FOUND");
    expectError(await other.api.delete(`/forms/${form.id}`), 404, "NOT_FOUND");
    expect((await other.api.get("/forms")).body).toEqual([]);
    expect((await p.api.get(`/forms/${form.id}`)).body.name).toBe("Newsletter");
  });

  it("is not for a public key", async () => {
    expectError(await p.publicApi.get("/forms"), 401, "UNAUTHORIZED");
  });
});

describe("the hosted page and its submissions", () => {
  it("a plain HTML post creates the contact, opts into the topics and fires a workflow on form.submitted", async () => {
    const topic = (await p.api.post("/topics", { name: "Weekly" })).body.id as string;
    const form = await newForm(p, { topicIds: [topic] });
    const workflow = (await p.api.post("/workflows", { name: "On signup", eventName: "form.submitted" })).body.id as string;
    expect((await p.api.patch(`/workflows/${workflow}`, { enabled: true })).status).toBe(200);

    const page = await anon().get(`/f/${form.id}`);
    expect(page.status).toBe(200);
    expect(page.headers.get("content-type")).toContain("text/html");
    const csp = page.headers.get("content-security-policy")!;
    expect(csp).toContain("default-src 'none'");
    expect(csp).toContain(`form-action ${new URL(sharedPlatform().url).origin};`);
    expect(page.body).not.toContain("<script");
    const html = page.body as string;
    expect(html).toContain(`action="${sharedPlatform().url}/f/${form.id}"`);
    const hidden = Object.fromEntries([...html.matchAll(/<input type="hidden" name="([^"]+)" value="([^"]*)">/g)].map((m) => [m[1]!, m[2]!]));
    // the page's own signature is the one the service checks (an HMAC of the form id and the render time)
    expect(hidden[FORM_HIDDEN.signature]).toBe(signRenderTime(secret, form.id, Number(hidden[FORM_HIDDEN.renderedAt])));
    expect(html).toContain(`name="${FORM_HIDDEN.honeypot}"`);

    // what a browser without JavaScript sends: the fields, the empty honeypot, the hidden fields (of a
    // page rendered 3 s ago, so the test need not wait out the 2 s a person takes at least)
    const address = email("html");
    const res = await postForm(form.id, { email: address, firstName: "Ada", plan: "pro", news: "on", ...rendered(form.id) });
    expect(res.status, JSON.stringify(res.body)).toBe(200);
    expect(res.body).toContain("Welcome aboard!");

    const contact = await contactByEmail(p, address);
    expect(contact).toMatchObject({ subscribed: true, data: { firstName: "Ada", plan: "pro", news: true }, topics: { [topic]: true } });
    const events = (await p.api.get(`/contacts/${contact!.id}/events`)).body.data;
    expect(events).toMatchObject([{ name: "form.submitted", data: { formId: form.id, fields: { email: address, firstName: "Ada", plan: "pro", news: true } } }]);
    await expect.poll(async () => (await p.api.get(`/workflows/${workflow}/executions`)).body.data.map((e: { contactId: string }) => e.contactId)).toEqual([contact!.id]);
    expect((await p.api.get(`/forms/${form.id}`)).body.submissions).toBe(1);
  });

  it("JSON with CORS, and a redirect for a form post", async () => {
    const form = await newForm(p, { redirectUrl: "https://example.org/thanks" });
    const preflight = await anon().call("OPTIONS", `/f/${form.id}`, undefined, {
      origin: "https://shop.example.org",
      "access-control-request-method": "POST",
      "access-control-request-headers": "content-type",
    });
    expect(preflight.status).toBe(204);
    expect(preflight.headers.get("access-control-allow-origin")).toBe("*");
    expect(preflight.headers.get("access-control-allow-methods")).toContain("POST");
    expect(preflight.headers.get("access-control-allow-headers")?.toLowerCase()).toContain("content-type");

    // a site's own script reads the form and its hidden values cross-origin, and posts them back
    const origin = { origin: "https://shop.example.org" };
    const render = await anon().get(`/f/${form.id}?format=json`, origin);
    expect(render.status).toBe(200);
    expect(render.headers.get("access-control-allow-origin")).toBe("*");
    expect(render.body).toMatchObject({ id: form.id, name: "Newsletter", fields: FIELDS, hidden: { [FORM_HIDDEN.honeypot]: "" } });
    const hidden = render.body.hidden as Record<string, string>;
    expect(hidden[FORM_HIDDEN.signature]).toBe(signRenderTime(secret, form.id, Number(hidden[FORM_HIDDEN.renderedAt])));
    // sent at once, as a bot would, it is answered as a person is and writes nothing
    const hasty = email("hasty");
    const bot = await anon().post(`/f/${form.id}`, { email: hasty, ...hidden }, origin);
    expect(bot.body).toEqual({ success: true, message: "Welcome aboard!", redirectUrl: "https://example.org/thanks" });

    const address = email("json");
    const res = await anon().post(`/f/${form.id}`, { email: address, ...rendered(form.id) }, origin);
    expect(res.status, JSON.stringify(res.body)).toBe(200);
    expect(res.headers.get("access-control-allow-origin")).toBe("*");
    expect(res.body).toEqual({ success: true, message: "Welcome aboard!", redirectUrl: "https://example.org/thanks" });
    const redirected = await postForm(form.id, { email: email("redirect"), ...rendered(form.id) });
    expect(redirected.status).toBe(303);
    expect(redirected.headers.get("location")).toBe("https://example.org/thanks");
    expect((await p.api.get(`/forms/${form.id}`)).body.submissions).toBe(2);
    await settled();
    expect(await contactByEmail(p, hasty)).toBeUndefined();
  });

  it("never resubscribes a contact that left, nor a topic it left", async () => {
    const topic = (await p.api.post("/topics", { name: "Offers", defaultSubscribed: false })).body.id as string;
    const form = await newForm(p, { topicIds: [topic] });
    const address = email("left");
    const id = (await p.api.post("/contacts", { email: address, subscribed: false, topics: { [topic]: false } })).body.id as string;
    expect((await postForm(form.id, { email: address, firstName: "Bo", ...rendered(form.id) })).status).toBe(200);
    expect((await p.api.get(`/contacts/${id}`)).body).toMatchObject({ subscribed: false, topics: { [topic]: false }, data: { firstName: "Bo" } });
  });

  it("with double opt-in, creates the contact unsubscribed and mails the confirmation", async () => {
    const project = await newProject("forms-doi");
    expect((await project.api.patch("/settings/sending", { doubleOptIn: { enabled: true } })).status).toBe(200);
    const form = await newForm(project);
    const address = email("doi");
    expect((await postForm(form.id, { email: address, ...rendered(form.id) })).status).toBe(200);
    expect(await contactByEmail(project, address)).toMatchObject({ subscribed: false });
    await expect.poll(async () => (await mailboxMessages([address])).length).toBe(1);
  });

  describe("defences: each changes nothing", () => {
    let form: { id: string };
    let workflow: string;
    beforeAll(async () => {
      form = await newForm(p);
      workflow = (await p.api.post("/workflows", { name: "Bots", eventName: "form.submitted" })).body.id as string;
      await p.api.patch(`/workflows/${workflow}`, { enabled: true });
    });
    const nothingFor = async (address: string) => {
      await settled();
      expect(await contactByEmail(p, address)).toBeUndefined();
      expect((await p.api.get(`/workflows/${workflow}/executions`)).body.data).toEqual([]);
      expect((await p.api.get(`/forms/${form.id}`)).body.submissions).toBe(0);
    };

    it("a filled honeypot: the bot sees the success page", async () => {
      const address = email("honeypot");
      const res = await postForm(form.id, { email: address, ...rendered(form.id), [FORM_HIDDEN.honeypot]: "https://spam.example" });
      expect(res.status, JSON.stringify(res.body)).toBe(200);
      expect(res.body).toContain("Welcome aboard!");
      await nothingFor(address);
    });

    it("a post under 2 s after its page was rendered: the bot sees the success page", async () => {
      const address = email("fast");
      const res = await postForm(form.id, { email: address, ...rendered(form.id, 500) });
      expect(res.status, JSON.stringify(res.body)).toBe(200);
      expect(res.body).toContain("Welcome aboard!");
      await nothingFor(address);
    });

    it("a missing or forged render time is refused", async () => {
      const address = email("forged");
      const missing = await postForm(form.id, { email: address });
      expectError(missing, 400, "VALIDATION_ERROR");
      expect(missing.body.reason).toBe("form_token");
      const signed = rendered(form.id);
      const forged = { ...signed, [FORM_HIDDEN.renderedAt]: String(Number(signed[FORM_HIDDEN.renderedAt]) - 60_000) };
      expectError(await postForm(form.id, { email: address, ...forged }), 400, "VALIDATION_ERROR");
      const otherForm = await newForm(p);
      expectError(await postForm(form.id, { email: address, ...rendered(otherForm.id) }), 400, "VALIDATION_ERROR");
      await nothingFor(address);
    });

    it("a disposable address is refused (the verify service's verdict)", async () => {
      const address = `someone-${randomUUID().slice(0, 6)}@${disposable}`;
      const res = await postForm(form.id, { email: address, ...rendered(form.id) });
      expectError(res, 400, "VALIDATION_ERROR");
      expect(res.body.details).toEqual([{ path: "email", message: "is a disposable address" }]);
      await nothingFor(address);
    });

    it("a domain without mail servers and a bad field are refused", async () => {
      const address = `someone@nomail-${randomUUID().slice(0, 6)}.example`;
      expectError(await postForm(form.id, { email: address, ...rendered(form.id) }), 400, "VALIDATION_ERROR");
      const res = await postForm(form.id, { email: email("badplan"), plan: "enterprise", ...rendered(form.id) });
      expectError(res, 400, "VALIDATION_ERROR");
      expect(res.body.details).toEqual([{ path: "plan", message: "must be one of the options" }]);
      await nothingFor(address);
    });
  });
});
