import type { Page } from "playwright-core";
import { apiClient } from "./http.js";
import { waitFor } from "./wait.js";

/**
 * The dashboard's pages, in one place for the accessibility sweep, the screenshots and the
 * benchmark: a page that needs a record (a contact, a template, an email) names it from the data
 * `demoData()` found or made. The sign-in page is not here: it is visited signed out.
 */
export interface DemoData {
  contactId: string;
  templateId: string;
  emailId: string;
  segmentId: string;
  /** A SENT campaign, for the page of a campaign's results. */
  campaignId: string;
  workflowId: string;
  /** A webhook endpoint with a delivery in its log. */
  webhookId: string;
}
export interface DashboardPage {
  /** Also the screenshot's file name. */
  name: string;
  path: (data: DemoData) => string;
}
export const DASHBOARD_PAGES: readonly DashboardPage[] = [
  { name: "overview", path: () => "/app/overview" },
  { name: "contacts", path: () => "/app/contacts" },
  { name: "contact", path: (d) => `/app/contacts/${d.contactId}` },
  { name: "contact-import", path: () => "/app/contacts/import" },
  { name: "segments", path: () => "/app/segments" },
  { name: "segment", path: (d) => `/app/segments/${d.segmentId}` },
  { name: "topics", path: () => "/app/topics" },
  { name: "templates", path: () => "/app/templates" },
  { name: "template-editor", path: (d) => `/app/templates/${d.templateId}` },
  { name: "campaigns", path: () => "/app/campaigns" },
  { name: "campaign-composer", path: () => "/app/campaigns/new" },
  { name: "campaign", path: (d) => `/app/campaigns/${d.campaignId}` },
  { name: "emails", path: () => "/app/emails" },
  { name: "email", path: (d) => `/app/emails/${d.emailId}` },
  { name: "workflows", path: () => "/app/workflows" },
  { name: "workflow", path: (d) => `/app/workflows/${d.workflowId}` },
  { name: "workflow-executions", path: (d) => `/app/workflows/${d.workflowId}/executions` },
  { name: "domains", path: () => "/app/domains" },
  { name: "webhooks", path: () => "/app/webhooks" },
  { name: "webhook", path: (d) => `/app/webhooks/${d.webhookId}` },
  { name: "forms", path: () => "/app/forms" },
  { name: "api-keys", path: () => "/app/api-keys" },
  { name: "members", path: () => "/app/members" },
  { name: "settings", path: () => "/app/settings" },
];

const DEMO_CONTACTS = [
  { email: "ada@example.com", data: { firstName: "Ada", plan: "pro" } },
  { email: "grace@example.com", data: { firstName: "Grace", plan: "free" } },
  { email: "alan@example.com", data: { firstName: "Alan", plan: "pro" } },
  { email: "edsger@example.com", subscribed: false, data: { firstName: "Edsger", plan: "free" } },
];

/**
 * A topic, a contact, a template, a segment, an email, a sent campaign, a workflow and a webhook
 * endpoint of the project, for the pages that show one: the first of each when the project has
 * some, made through the API (with the project's secret key) when it has none. Sending needs `from` on a domain the project has verified. Waits until the email has been
 * handed to SMTP, so its timeline shows more than QUEUED.
 */
export async function demoData(baseUrl: string, secretKey: string, opts: { from: string }): Promise<DemoData> {
  const api = apiClient(baseUrl, secretKey);
  const ok = <T>(res: { status: number; body: T }, what: string): T => {
    if (res.status >= 300) throw new Error(`${what} answered ${res.status}: ${JSON.stringify(res.body)}`);
    return res.body;
  };
  // A topic, so the Topics page shows its table and the contact page its switches.
  if (ok(await api.get("/topics"), "GET /topics").length === 0) {
    ok(await api.post("/topics", { name: "Product news", description: "What we ship", defaultSubscribed: true }), "POST /topics");
  }
  let contacts = ok(await api.get("/contacts?limit=1"), "GET /contacts").data;
  if (!contacts.length) {
    for (const c of DEMO_CONTACTS) ok(await api.post("/contacts", c), "POST /contacts");
    contacts = ok(await api.get("/contacts?limit=1"), "GET /contacts").data;
  }
  let [template] = ok(await api.get("/templates?pageSize=1"), "GET /templates").templates;
  template ??= ok(
    await api.post("/templates", {
      name: "Welcome",
      type: "TRANSACTIONAL",
      subject: "Welcome to Mailroom, {{ firstName ?? 'friend' }}",
      body: "<h1>Hi {{ firstName ?? 'there' }}!</h1>\n<p>Thanks for joining. <a href=\"https://example.com/start\">Get started</a>.</p>",
    }),
    "POST /templates",
  );
  // A segment with nested conditions, so the builder's page shows groups, a nested group and several value inputs.
  let [segment] = ok(await api.get("/segments"), "GET /segments");
  segment ??= ok(
    await api.post("/segments", {
      name: "Pro customers",
      filters: {
        logic: "AND",
        groups: [
          {
            filters: [{ field: "data.plan", operator: "equals", value: "pro" }],
            conditions: {
              logic: "OR",
              groups: [
                { filters: [{ field: "subscribed", operator: "equals", value: true }] },
                { filters: [{ field: "createdAt", operator: "within", value: 30, unit: "days" }] },
              ],
            },
          },
        ],
      },
    }),
    "POST /segments",
  );
  let [email] = ok(await api.get("/emails?limit=1"), "GET /emails").data;
  if (!email) {
    const sent = ok(await api.post("/v1/send", { to: DEMO_CONTACTS[0]!.email, from: opts.from, template: template.id, data: { firstName: "Ada" } }), "POST /v1/send");
    email = { id: sent.data.emails[0].email };
  }
  await waitFor(async () => ok(await api.get(`/emails/${email.id}/events`), "GET /emails/:id/events").data.length > 1, {
    timeoutMs: 20_000,
    what: "the demo email to be sent",
  });
  let [campaign] = ok(await api.get("/campaigns?status=SENT&limit=1"), "GET /campaigns").campaigns;
  if (!campaign) {
    campaign = ok(
      await api.post("/campaigns", {
        name: "Spring news",
        subject: "Spring at Mailroom, {{ firstName ?? 'friend' }}",
        body: "<p>Hi {{ firstName ?? 'there' }}, <a href=\"https://example.com/spring\">see what is new</a>.</p>",
        from: opts.from,
        audienceType: "ALL",
      }),
      "POST /campaigns",
    ).data;
    ok(await api.post(`/campaigns/${campaign.id}/send`), "POST /campaigns/:id/send");
    await waitFor(async () => ok(await api.get(`/campaigns/${campaign.id}`), "GET /campaigns/:id").status === "SENT", {
      timeoutMs: 30_000,
      what: "the demo campaign to be sent",
    });
  }
  let [workflow] = ok(await api.get("/workflows?limit=1"), "GET /workflows").workflows;
  if (!workflow) {
    workflow = ok(await api.post("/workflows", { name: "Welcome series", eventName: "signup" }), "POST /workflows");
    const trigger = workflow.steps[0].id;
    const delay = ok(await api.post(`/workflows/${workflow.id}/steps`, { type: "DELAY", name: "Wait a day", config: { amount: 1, unit: "days" }, after: trigger, position: { x: 0, y: 140 } }), "POST /workflows/:id/steps");
    ok(await api.post(`/workflows/${workflow.id}/steps`, { type: "SEND_EMAIL", name: "Welcome", config: { templateId: template.id }, after: delay.id, position: { x: 0, y: 280 } }), "POST /workflows/:id/steps");
  }
  // An endpoint on a name that resolves nowhere (.test is reserved): its test event shows in the log
  // with the error of its attempts, and no request leaves the machine, whatever platform this is.
  let [webhook] = ok(await api.get("/webhooks?limit=1"), "GET /webhooks").webhooks;
  if (!webhook) {
    webhook = ok(await api.post("/webhooks", { url: "https://hooks.mailroom.test/events", events: ["email.*", "segment.*.entry"], description: "Order system" }), "POST /webhooks");
    ok(await api.post(`/webhooks/${webhook.id}/test`), "POST /webhooks/:id/test");
  }
  if (!ok(await api.get("/forms"), "GET /forms").length) {
    const fields = [
      { key: "email", label: "Email", type: "email", required: true },
      { key: "firstName", label: "First name", type: "text", required: false },
    ];
    ok(await api.post("/forms", { name: "Newsletter signup", fields, successMessage: "Thanks for signing up!" }), "POST /forms");
  }
  return {
    contactId: contacts[0].id,
    templateId: template.id,
    emailId: email.id,
    segmentId: segment.id,
    campaignId: campaign.id,
    workflowId: workflow.id,
    webhookId: webhook.id,
  };
}

/**
 * Waits until a signed-in page has rendered: its main area shows a heading, no loader is left
 * (every loader's label starts with "Loading") and the dashboard's typeface has loaded, so what is
 * measured is laid out in it and not in the fallback it swaps out.
 */
export async function pageRendered(page: Page): Promise<void> {
  await page.getByRole("main").getByRole("heading").first().waitFor();
  // Every loader's label starts with "Loading" ("Loading", "Loading the editor", …).
  await waitFor(async () => (await page.getByLabel(/^Loading/).count()) === 0, { what: "the page's loaders to go", timeoutMs: 15_000 });
  await page.evaluate("document.fonts.ready.then(() => true)");
}
