import { describe, expect, it } from "vitest";
import { z } from "zod";
import {
  accountRoutes,
  requiredRole,
  roleAllows,
  ConditionConfig,
  CreateCampaignRequest,
  CreateStepRequest,
  FilterExpression,
  MAX_MESSAGE_BYTES,
  ROUTES,
  RPCS,
  SendEmailRequest,
  TrackRequest,
  UpdateWorkflowRequest,
  bodyLimitOf,
  contactsRoutes,
  routeOf,
  zodDetails,
} from "./index.js";

const key = (r: { method: string; path: string }) => `${r.method} ${r.path}`;

/** The issue paths of a failed parse, joined as in the Error object's `details`. */
function issuePaths(schema: z.ZodType, input: unknown): string[] {
  const result = schema.safeParse(input);
  if (result.success) return [];
  return zodDetails(result.error).map((d) => d.path);
}

describe("route table", () => {
  it("covers every route of api-spec.md and decisions.md", () => {
    const expected = [
      "POST /v1/send", "POST /v1/track", "POST /v1/verify",
      "GET /contacts", "POST /contacts", "GET /contacts/:id", "PATCH /contacts/:id", "DELETE /contacts/:id",
      "GET /contacts/:id/events", "GET /events/names", "GET /contacts/data-keys",
      "POST /contacts/imports", "GET /contacts/imports/:id", "GET /contacts/export",
      "GET /segments", "POST /segments", "GET /segments/:id", "PATCH /segments/:id", "DELETE /segments/:id",
      "GET /segments/:id/contacts", "POST /segments/count",
      "GET /templates", "POST /templates", "GET /templates/:id", "PATCH /templates/:id", "DELETE /templates/:id",
      "GET /emails", "GET /emails/:id", "GET /emails/:id/events", "GET /stats",
      "POST /domains", "GET /domains", "GET /domains/:id", "PATCH /domains/:id", "DELETE /domains/:id", "POST /domains/:id/verify",
      "GET /settings/sending", "PATCH /settings/sending",
      "GET /t/o/:token", "GET /t/c/:token", "GET /u/:token", "POST /u/:token", "GET /s/:token", "POST /s/:token",
      "GET /m/:token", "POST /m/:token", "GET /c/:token", "POST /c/:token", "POST /webhooks/ses",
      "GET /topics", "POST /topics", "GET /topics/:id", "PATCH /topics/:id", "DELETE /topics/:id",
      "GET /forms", "POST /forms", "GET /forms/:id", "PATCH /forms/:id", "DELETE /forms/:id", "GET /f/:id", "POST /f/:id",
      "GET /campaigns", "POST /campaigns", "GET /campaigns/:id", "PATCH /campaigns/:id", "DELETE /campaigns/:id",
      "POST /campaigns/:id/send", "POST /campaigns/:id/cancel", "POST /campaigns/:id/test", "GET /campaigns/:id/links", "GET /campaigns/:id/checks",
      "GET /workflows", "POST /workflows", "GET /workflows/:id", "PATCH /workflows/:id", "DELETE /workflows/:id",
      "POST /workflows/:id/steps", "PATCH /workflows/:id/steps/:stepId", "DELETE /workflows/:id/steps/:stepId",
      "POST /workflows/:id/transitions", "DELETE /workflows/:id/transitions/:transitionId",
      "POST /workflows/:id/executions", "GET /workflows/:id/executions", "GET /workflows/:id/executions/:executionId",
      "POST /workflows/:id/executions/:executionId/cancel", "POST /workflows/:id/executions/cancel-all",
      "POST /webhooks", "GET /webhooks", "GET /webhooks/:id", "PATCH /webhooks/:id", "DELETE /webhooks/:id",
      "POST /webhooks/:id/rotate-secret", "POST /webhooks/:id/test", "GET /webhooks/:id/deliveries",
      "POST /webhooks/:id/deliveries/:deliveryId/retry",
    ];
    expect(ROUTES.map(key).sort()).toEqual([...expected].sort());
  });

  it("lists the gateway's own account routes of decisions.md §13 and §15 apart from the forwarded ones", () => {
    expect(accountRoutes.map(key).sort()).toEqual(
      [
        "POST /auth/login", "POST /auth/logout", "GET /auth/me", "POST /auth/invitations/accept",
        "POST /auth/logout-everywhere", "POST /auth/password",
        "GET /projects/:id/members", "POST /projects/:id/members", "PATCH /projects/:id/members/:userId",
        "DELETE /projects/:id/members/:userId", "GET /projects/:id/keys", "POST /projects/:id/keys",
        "DELETE /projects/:id/keys/:keyId",
      ].sort(),
    );
    expect(accountRoutes.every((r) => r.service === "gateway")).toBe(true);
  });

  it("asks sessions for the least role that fits: owner for domains, settings, forms, members, keys and webhooks", () => {
    const owner = [...ROUTES, ...accountRoutes].filter((r) => requiredRole(r) === "owner").map(key).sort();
    expect(owner).toEqual(
      [
        "POST /domains", "PATCH /domains/:id", "DELETE /domains/:id", "POST /domains/:id/verify", "PATCH /settings/sending",
        "POST /forms", "PATCH /forms/:id", "DELETE /forms/:id",
        "POST /projects/:id/members", "PATCH /projects/:id/members/:userId", "DELETE /projects/:id/members/:userId",
        "GET /projects/:id/keys", "POST /projects/:id/keys", "DELETE /projects/:id/keys/:keyId",
        "POST /webhooks", "GET /webhooks", "GET /webhooks/:id", "PATCH /webhooks/:id", "DELETE /webhooks/:id",
        "POST /webhooks/:id/rotate-secret", "POST /webhooks/:id/test", "GET /webhooks/:id/deliveries",
        "POST /webhooks/:id/deliveries/:deliveryId/retry",
      ].sort(),
    );
    expect(requiredRole({ method: "GET" })).toBe("viewer");
    expect(requiredRole({ method: "POST" })).toBe("editor");
    expect(roleAllows("owner", "editor") && roleAllows("editor", "viewer") && !roleAllows("viewer", "editor")).toBe(true);
  });

  it("has a unique method+path and a unique operation per route, none shared with an RPC", () => {
    expect(new Set(ROUTES.map(key)).size).toBe(ROUTES.length);
    const operations = [...ROUTES.map((r) => r.operation), ...RPCS.map((r) => r.operation)];
    expect(new Set(operations).size).toBe(operations.length);
    for (const op of operations) expect(op).toMatch(/^(contacts|sending|campaigns|workflows|verify)\.[A-Za-z.]+$/);
  });

  it("names every path parameter in the params schema", () => {
    for (const route of ROUTES) {
      const names = [...route.path.matchAll(/:(\w+)/g)].map((m) => m[1]).sort();
      expect(Object.keys(route.params?.shape ?? {}).sort(), key(route)).toEqual(names);
    }
  });

  it("takes Idempotency-Key on exactly the five routes of decisions §3", () => {
    expect(ROUTES.filter((r) => r.idempotent).map(key).sort()).toEqual(
      [
        "POST /v1/send",
        "POST /v1/track",
        "POST /contacts",
        "POST /campaigns/:id/send",
        "POST /workflows/:id/executions",
      ].sort(),
    );
  });

  it("lets a public key in only on /v1/track, browsers there and on a form's post, and no key only on public links and forms", () => {
    expect(ROUTES.filter((r) => r.auth === "any").map(key)).toEqual(["POST /v1/track"]);
    expect(ROUTES.filter((r) => r.cors).map(key)).toEqual(["POST /v1/track", "GET /f/:id", "POST /f/:id"]);
    const open = ROUTES.filter((r) => r.auth === "none").map((r) => r.path);
    for (const path of open) expect(path).toMatch(/^\/(t\/[oc]|u|s|m|c)\/:token$|^\/webhooks\/ses$|^\/f\/:id$/);
    expect(open).toHaveLength(13);
    // the one route limited per client address on its own: a form's submissions (decisions §17)
    expect(ROUTES.filter((r) => r.clientLimitPerMinute).map((r) => [key(r), r.clientLimitPerMinute])).toEqual([["POST /f/:id", 10]]);
  });

  it("bounds every body: 64 KB without a key, 2 MB with one, the base64 message limit on /v1/send only, 1 GB for an import", () => {
    for (const route of ROUTES) {
      const limit = bodyLimitOf(route);
      if (route.auth === "none") expect(limit, key(route)).toBe(64 * 1024);
      else if (key(route) === "POST /v1/send") expect(limit, key(route)).toBeGreaterThan((MAX_MESSAGE_BYTES * 4) / 3);
      else if (key(route) === "POST /contacts/imports") expect(limit, key(route)).toBe(1024 ** 3);
      else expect(limit, key(route)).toBe(2 * 1024 * 1024);
    }
  });

  it("streams only the CSV import's body and the CSV export's answer, as secret-key routes", () => {
    expect(ROUTES.filter((r) => r.upload).map(key)).toEqual(["POST /contacts/imports"]);
    expect(ROUTES.filter((r) => r.streamed).map(key)).toEqual(["GET /contacts/export"]);
    for (const r of ROUTES.filter((r) => r.upload || r.streamed)) {
      expect(r.auth, key(r)).toBe("secret");
      expect(r.body, key(r)).toBeUndefined();
    }
    expect(routeOf(contactsRoutes, "contacts.export").rawResponse?.contentType).toMatch(/^text\/csv/);
  });

  it("takes an import's topics as a comma-separated list of at most 20 ids, blanks and repeats dropped", async () => {
    const { ImportContactsQuery, importTopicIds } = await import("./index.js");
    expect(importTopicIds(" a,b,,a ,c")).toEqual(["a", "b", "c"]);
    expect(importTopicIds(undefined)).toEqual([]);
    expect(ImportContactsQuery.safeParse({ topics: Array.from({ length: 20 }, (_, i) => `t${i}`).join(",") }).success).toBe(true);
    expect(ImportContactsQuery.safeParse({ topics: Array.from({ length: 21 }, (_, i) => `t${i}`).join(",") }).success).toBe(false);
    expect(ImportContactsQuery.safeParse({ topics: `ok,${"x".repeat(201)}` }).success).toBe(false);
    expect(routeOf(contactsRoutes, "contacts.imports.create").query).toBe(ImportContactsQuery);
  });

  it("documents a JSON body or a raw answer for every route but the 204s", () => {
    for (const route of ROUTES) {
      const documented = route.response !== undefined || route.rawResponse !== undefined;
      expect(documented, key(route)).toBe(route.status !== 204);
    }
  });

  it("converts every schema to JSON Schema", () => {
    for (const route of ROUTES) {
      for (const schema of [route.params, route.query, route.body]) {
        if (schema) expect(() => z.toJSONSchema(schema, { io: "input" }), key(route)).not.toThrow();
      }
      if (route.response) expect(() => z.toJSONSchema(route.response!), key(route)).not.toThrow();
    }
    for (const rpc of RPCS) {
      expect(() => z.toJSONSchema(rpc.request, { io: "input" }), rpc.operation).not.toThrow();
      expect(() => z.toJSONSchema(rpc.reply), rpc.operation).not.toThrow();
    }
  });

  it("finds a route of a list by its operation, and names the one a list lacks", () => {
    const route = routeOf(contactsRoutes, "contacts.read");
    expect(key(route)).toBe("GET /contacts/:id");
    // a handler's input is the route's own: `params` of this one has `id`
    expect(route.params.parse({ id: "x" })).toEqual({ id: "x" });
    const unknown = "contacts.nothing" as (typeof contactsRoutes)[number]["operation"];
    expect(() => routeOf(contactsRoutes, unknown)).toThrow("no route contacts.nothing in the contracts");
  });
});

describe("POST /v1/send", () => {
  const valid = { to: "ada@example.com", from: "team@example.com", subject: "Hi", body: "<p>Hi</p>" };

  it("accepts the three forms of `to` and both forms of `from`", () => {
    for (const to of [
      "ada@example.com",
      { email: "ada@example.com", name: "Ada" },
      ["ada@example.com", { email: "bob@example.com" }],
    ]) {
      expect(SendEmailRequest.safeParse({ ...valid, to }).success).toBe(true);
    }
    expect(SendEmailRequest.safeParse({ ...valid, from: { email: "team@example.com", name: "Team" } }).success).toBe(true);
  });

  it("rejects a bad recipient at its own path", () => {
    expect(issuePaths(SendEmailRequest, { ...valid, to: ["ada@example.com", { email: "nope" }] })).toEqual(["to.1.email"]);
  });

  it("rejects a subject with a line break", () => {
    expect(issuePaths(SendEmailRequest, { ...valid, subject: "Hi\nBcc: x@evil.test" })).toEqual(["subject"]);
    expect(issuePaths(SendEmailRequest, { ...valid, subject: "x".repeat(999) })).toEqual(["subject"]);
  });

  it("rejects header injection in values and names", () => {
    expect(issuePaths(SendEmailRequest, { ...valid, headers: { "X-Tag": "a\r\nBcc: x@evil.test" } })).toEqual([
      "headers.X-Tag",
    ]);
    expect(issuePaths(SendEmailRequest, { ...valid, headers: { "X-Tag\r\nBcc": "a" } })).toHaveLength(1);
    expect(issuePaths(SendEmailRequest, { ...valid, headers: { "X-Tag": "v".repeat(999) } })).toEqual(["headers.X-Tag"]);
    expect(SendEmailRequest.safeParse({ ...valid, headers: { "X-Tag": "v".repeat(998) } }).success).toBe(true);
  });

  const attachment = { filename: "a.txt", content: "aGVsbG8=", contentType: "text/plain" };

  it("rejects an 11th attachment", () => {
    expect(SendEmailRequest.safeParse({ ...valid, attachments: Array(10).fill(attachment) }).success).toBe(true);
    expect(issuePaths(SendEmailRequest, { ...valid, attachments: Array(11).fill(attachment) })).toEqual(["attachments"]);
  });

  it("needs contentId on an inline attachment", () => {
    const inline = { ...attachment, disposition: "inline" };
    expect(issuePaths(SendEmailRequest, { ...valid, attachments: [inline] })).toEqual(["attachments.0.contentId"]);
    expect(SendEmailRequest.safeParse({ ...valid, attachments: [{ ...inline, contentId: "logo" }] }).success).toBe(true);
  });

  it("rejects quotes or newlines in a filename and content that is not Base64", () => {
    expect(issuePaths(SendEmailRequest, { ...valid, attachments: [{ ...attachment, filename: 'a".txt' }] })).toEqual([
      "attachments.0.filename",
    ]);
    expect(issuePaths(SendEmailRequest, { ...valid, attachments: [{ ...attachment, content: "not base64!" }] })).toEqual([
      "attachments.0.content",
    ]);
  });

  it("needs subject, body and from unless a template is given", () => {
    expect(issuePaths(SendEmailRequest, { to: "ada@example.com" }).sort()).toEqual(["body", "from", "subject"]);
    expect(SendEmailRequest.safeParse({ to: "ada@example.com", template: "tpl_1" }).success).toBe(true);
  });
});

describe("POST /v1/track", () => {
  it("leaves reserved names to the service and rejects unprintable or long ones", () => {
    const base = { email: "ada@example.com", data: { plan: "pro", gone: null, once: { value: 1, persistent: false } } };
    expect(TrackRequest.safeParse({ ...base, event: "email.open" }).success).toBe(true);
    expect(issuePaths(TrackRequest, { ...base, event: "sign\nup" })).toEqual(["event"]);
    expect(issuePaths(TrackRequest, { ...base, event: "e".repeat(201) })).toEqual(["event"]);
    expect(issuePaths(TrackRequest, { ...base, event: "" })).toEqual(["event"]);
  });
});

describe("filter language", () => {
  const example = {
    logic: "AND",
    groups: [
      {
        filters: [
          { field: "subscribed", operator: "equals", value: true },
          { field: "data.plan", operator: "equals", value: "pro" },
        ],
      },
      {
        filters: [],
        conditions: {
          logic: "OR",
          groups: [
            { filters: [{ field: "email.opened", operator: "triggeredWithin", value: 14, unit: "days" }] },
            { filters: [{ field: "event.signup", operator: "triggered" }] },
          ],
        },
      },
    ],
  };
  const withFilter = (filter: object) => ({ logic: "AND", groups: [{ filters: [filter] }] });
  const at = "groups.0.filters.0";

  it("accepts the example of decisions §8", () => {
    expect(FilterExpression.parse(example)).toEqual(example);
  });

  it.each([
    ["an unknown field", { field: "plan", operator: "equals", value: "pro" }, `${at}.field`],
    ["an empty data path", { field: "data.", operator: "exists" }, `${at}.field`],
    ["an unknown email activity", { field: "email.read", operator: "triggered" }, `${at}.field`],
    ["an unknown operator", { field: "data.plan", operator: "like", value: "pro" }, `${at}.operator`],
    ["an operator of another family", { field: "subscribed", operator: "contains", value: "t" }, `${at}.operator`],
    ["a time operator without unit", { field: "createdAt", operator: "within", value: 3 }, `${at}.unit`],
    ["an unknown unit", { field: "createdAt", operator: "within", value: 3, unit: "weeks" }, `${at}.unit`],
    ["a unit on a value operator", { field: "data.n", operator: "equals", value: 3, unit: "days" }, `${at}.unit`],
    ["a boolean field compared to a string", { field: "subscribed", operator: "equals", value: "yes" }, `${at}.value`],
    ["contains with a number", { field: "data.plan", operator: "contains", value: 3 }, `${at}.value`],
    ["in with a scalar", { field: "data.plan", operator: "in", value: "pro" }, `${at}.value`],
    ["a missing value", { field: "data.plan", operator: "equals" }, `${at}.value`],
    ["a value on exists", { field: "data.plan", operator: "exists", value: true }, `${at}.value`],
    ["a non-date on createdAt", { field: "createdAt", operator: "greaterThan", value: "yesterday" }, `${at}.value`],
    ["a negative count", { field: "event.signup", operator: "triggeredWithin", value: -1, unit: "days" }, `${at}.value`],
    ["a value of the wrong JSON type", { field: "data.plan", operator: "equals", value: { a: 1 } }, `${at}.value`],
  ])("rejects %s", (_name, filter, path) => {
    expect(issuePaths(FilterExpression, withFilter(filter))).toEqual([path]);
  });

  it("reports a bad filter in nested conditions at its full path", () => {
    const nested = { logic: "OR", groups: [{ filters: [], conditions: withFilter({ field: "nope", operator: "exists" }) }] };
    expect(issuePaths(FilterExpression, nested)).toEqual(["groups.0.conditions.groups.0.filters.0.field"]);
  });

  it("allows 5 levels of nesting and refuses a 6th", () => {
    const nest = (levels: number): object =>
      levels === 1 ? withFilter({ field: "email", operator: "exists" }) : { logic: "AND", groups: [{ filters: [], conditions: nest(levels - 1) }] };
    expect(FilterExpression.safeParse(nest(5)).success).toBe(true);
    const deep = "groups.0.conditions.".repeat(5).replace(/\.$/, "");
    expect(issuePaths(FilterExpression, nest(6))).toEqual([deep]);
  });

  it("reads event.<key> as trigger data in CONDITION steps, and accepts the short form", () => {
    expect(ConditionConfig.safeParse({ field: "event.plan", operator: "equals", value: "pro" }).success).toBe(true);
    expect(FilterExpression.safeParse(withFilter({ field: "event.plan", operator: "equals", value: "pro" })).success).toBe(false);
    expect(ConditionConfig.safeParse(withFilter({ field: "contact.subscribed", operator: "equals", value: true })).success).toBe(true);
    expect(issuePaths(ConditionConfig, { field: "data.plan", operator: "like", value: "pro" })).toEqual(["operator"]);
    expect(issuePaths(CreateStepRequest, { type: "CONDITION", config: { field: "data.n", operator: "within", value: 2 } })).toEqual([
      "config.unit",
    ]);
  });
});

describe("campaigns and workflows", () => {
  const campaign = { name: "Launch", subject: "New", body: "<p>x</p>", from: "team@example.com" };

  it("needs the audience its type names", () => {
    expect(issuePaths(CreateCampaignRequest, { ...campaign, audienceType: "SEGMENT" })).toEqual(["segmentId"]);
    expect(issuePaths(CreateCampaignRequest, { ...campaign, audienceType: "FILTERED" })).toEqual(["audienceFilter"]);
    expect(CreateCampaignRequest.safeParse({ ...campaign, audienceType: "ALL" }).success).toBe(true);
  });

  it("refuses to create a second TRIGGER step and checks each step type's config", () => {
    expect(issuePaths(CreateStepRequest, { type: "TRIGGER", config: { eventName: "x" } })).toEqual(["type"]);
    expect(issuePaths(CreateStepRequest, { type: "DELAY", config: { amount: 0, unit: "days" } })).toEqual(["config.amount"]);
    expect(issuePaths(CreateStepRequest, { type: "WEBHOOK", config: { url: "ftp://example.com" } })).toEqual(["config.url"]);
    expect(CreateStepRequest.parse({ type: "EXIT" })).toEqual({ type: "EXIT", config: {} });
  });

  it("refuses webhook headers that frame the message, name the host or manage the connection", () => {
    const step = (headers: Record<string, string>) => ({ type: "WEBHOOK", config: { url: "https://example.com/h", headers } });
    const reserved = { Host: "a", "content-length": "1", "Transfer-Encoding": "chunked", CONNECTION: "close", "Keep-Alive": "1", Upgrade: "h2c", TE: "trailers" };
    expect(issuePaths(CreateStepRequest, step({ ...reserved, Authorization: "Bearer x" })).sort()).toEqual(
      Object.keys(reserved).map((h) => `config.headers.${h}`).sort(),
    );
    expect(CreateStepRequest.safeParse(step({ Authorization: "Bearer x", Cookie: "a=b", "X-Custom": "1", "Content-Type": "text/plain" })).success).toBe(true);
  });

  it("checks triggerConfig against the triggerType it comes with", () => {
    expect(UpdateWorkflowRequest.safeParse({ triggerType: "SCHEDULE", triggerConfig: { cron: "0 9 * * 1" } }).success).toBe(true);
    expect(issuePaths(UpdateWorkflowRequest, { triggerType: "SCHEDULE" })).toEqual(["triggerConfig"]);
    expect(issuePaths(UpdateWorkflowRequest, { triggerType: "SCHEDULE", triggerConfig: { eventName: "x" } })).toContain(
      "triggerConfig.cron",
    );
    expect(
      issuePaths(UpdateWorkflowRequest, { triggerType: "SCHEDULE", triggerConfig: { cron: "@daily", timezone: "Mars/Base" } }),
    ).toEqual(["triggerConfig.timezone"]);
  });
});

describe("topics and double opt-in", () => {
  it("reserves the topic event names on /v1/track and files them under the contact family", async () => {
    const { isReservedEventName, eventFamily } = await import("./index.js");
    for (const name of ["contact.topic.subscribed", "contact.topic.unsubscribed"]) {
      expect(isReservedEventName(name)).toBe(true);
      expect(eventFamily(name)).toBe("contact");
    }
    expect(isReservedEventName("contact.topic.changed")).toBe(false);
  });

  it("reserves form.submitted (only a form's submission emits it) and files it as a contact's tracked event", async () => {
    const { isReservedEventName, eventFamily, SYSTEM_EVENT_NAMES, SYSTEM_EVENT_DATA } = await import("./index.js");
    expect(isReservedEventName("form.submitted")).toBe(true);
    expect(eventFamily("form.submitted")).toBe("custom");
    expect(SYSTEM_EVENT_NAMES).toContain("form.submitted");
    expect(SYSTEM_EVENT_DATA["form.submitted"].safeParse({ formId: "f", formName: "N", fields: { email: "a@b.c", news: true } }).success).toBe(true);
  });

  it("accepts topic.<id> in audiences with equals/notEquals and a boolean, never in workflow conditions", async () => {
    const { FilterExpression, ConditionConfig } = await import("./index.js");
    const expr = (filter: object) => ({ logic: "AND", groups: [{ filters: [filter] }] });
    expect(issuePaths(FilterExpression, expr({ field: "topic.t1", operator: "equals", value: true }))).toEqual([]);
    expect(issuePaths(FilterExpression, expr({ field: "topic.t1", operator: "notEquals", value: false }))).toEqual([]);
    expect(issuePaths(FilterExpression, expr({ field: "topic.t1", operator: "equals", value: "yes" }))).toEqual(["groups.0.filters.0.value"]);
    expect(issuePaths(FilterExpression, expr({ field: "topic.t1", operator: "exists" }))).toEqual(["groups.0.filters.0.operator"]);
    expect(issuePaths(FilterExpression, expr({ field: "topic.", operator: "equals", value: true }))).toEqual(["groups.0.filters.0.field"]);
    expect(issuePaths(ConditionConfig, { field: "topic.t1", operator: "equals", value: true })).toEqual(["field"]);
  });
});
