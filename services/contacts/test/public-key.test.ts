import { afterAll, beforeAll, describe, expect, it } from "vitest";
import type { EventEnvelope } from "@mailroom/contracts";
import { newProject } from "@mailroom/testkit/shared";
import { Bus, expectError, uniqueEmail } from "./helpers.js";

/**
 * What a public key (pk_, readable by anyone in a web page) may change (decisions.md §12): it may
 * create contacts, record events, write contact data and unsubscribe; it may not resubscribe a
 * contact that left. /v1/track is the one route that takes it.
 */
type Project = Awaited<ReturnType<typeof newProject>>;
let p: Project;
let bus: Bus;

beforeAll(async () => {
  [p, bus] = await Promise.all([newProject("public-key"), Bus.open()]);
});
afterAll(() => bus?.close());

const subscriptionEvents = async (contactId: string) =>
  (await bus.events(p.id, "contact")).filter((e: EventEnvelope) => e.contactId === contactId && e.name.startsWith("contact."));

describe("a public key on /v1/track", () => {
  it("creates a contact, subscribed when it says so, with its data", async () => {
    const email = uniqueEmail("pk-new");
    const res = await p.publicApi.post("/v1/track", { email, event: "signup", subscribed: true, data: { plan: "free" } });
    expect(res.status).toBe(200);
    const contact = await p.api.get(`/contacts/${res.body.data.contact}`);
    expect(contact.body).toMatchObject({ email, subscribed: true, data: { plan: "free" } });
    const unsubscribed = await p.publicApi.post("/v1/track", { email: uniqueEmail("pk-new-off"), event: "signup", subscribed: false });
    expect((await p.api.get(`/contacts/${unsubscribed.body.data.contact}`)).body.subscribed).toBe(false);
  });

  it("ignores subscribed: true for a contact that unsubscribed, and applies the rest of the call", async () => {
    const email = uniqueEmail("pk-left");
    const created = await p.api.post("/contacts", { email, subscribed: false, data: { plan: "free" } });
    expect(created.status).toBe(201);
    const id = created.body.id as string;

    const res = await p.publicApi.post("/v1/track", { email, event: "came.back", subscribed: true, data: { plan: "pro" } });
    expect(res.status).toBe(200);
    expect(res.body.data.contact).toBe(id);
    const contact = (await p.api.get(`/contacts/${id}`)).body;
    expect(contact).toMatchObject({ subscribed: false, data: { plan: "pro" } });
    const events = (await p.api.get(`/contacts/${id}/events`)).body.data;
    expect(events.map((e: { name: string }) => e.name)).toEqual(["came.back"]);

    // a secret key may resubscribe: its contact.subscribed is then the only one the contact has
    expect((await p.api.post("/v1/track", { email, event: "confirmed", subscribed: true })).status).toBe(200);
    expect((await p.api.get(`/contacts/${id}`)).body.subscribed).toBe(true);
    await bus.waitFor(() => subscriptionEvents(id), (e) => e.name === "contact.subscribed");
    expect((await subscriptionEvents(id)).map((e) => e.name)).toEqual(["contact.subscribed"]);
  });

  it("may unsubscribe a contact", async () => {
    const email = uniqueEmail("pk-off");
    const id = (await p.api.post("/contacts", { email })).body.id as string;
    expect((await p.publicApi.post("/v1/track", { email, event: "opt.out", subscribed: false })).status).toBe(200);
    expect((await p.api.get(`/contacts/${id}`)).body.subscribed).toBe(false);
    const [event] = await bus.waitFor(() => subscriptionEvents(id), (e) => e.name === "contact.unsubscribed");
    expect(event!.data).toEqual({});
  });

  it("cannot reach a contact any other way", async () => {
    const email = uniqueEmail("pk-other");
    const id = (await p.api.post("/contacts", { email, subscribed: false })).body.id as string;
    expectError(await p.publicApi.post("/contacts", { email, subscribed: true }), 401, "UNAUTHORIZED");
    expectError(await p.publicApi.patch(`/contacts/${id}`, { subscribed: true }), 401, "UNAUTHORIZED");
    expectError(
      await p.publicApi.post("/v1/send", { to: email, from: "a@example.com", subject: "s", body: "b", subscribed: true }),
      401,
      "UNAUTHORIZED",
    );
    expect((await p.api.get(`/contacts/${id}`)).body.subscribed).toBe(false);
  });
});
