import { z } from "zod";
import { defineRoute } from "../route.js";

/** Signed link tokens. A tampered or foreign token is 404 from the service, never 400, so the
 * schema only bounds the length. */
export const TokenParams = z.object({ token: z.string().min(1).max(1000) });
export type TokenParams = z.infer<typeof TokenParams>;

const HTML = { contentType: "text/html; charset=utf-8" };
const base = { service: "sending", auth: "none", tag: "Links", params: TokenParams } as const;

/** Served under PUBLIC_URL without an API key (decisions.md §6). A GET never changes a subscription,
 * because mail scanners fetch links. */
export const linkRoutes = [
  defineRoute({
    ...base,
    method: "GET",
    path: "/t/o/:token",
    operation: "sending.links.open",
    summary: "Open-tracking pixel",
    status: 200,
    rawResponse: { contentType: "image/gif", description: "a 1x1 transparent GIF" },
  }),
  defineRoute({
    ...base,
    method: "GET",
    path: "/t/c/:token",
    operation: "sending.links.click",
    summary: "Tracked link: records a click and redirects",
    status: 302,
    rawResponse: { contentType: "text/plain", description: "302 redirect (Location) to the link's stored URL" },
  }),
  defineRoute({
    ...base,
    method: "GET",
    path: "/u/:token",
    operation: "sending.links.unsubscribePage",
    summary: "Unsubscribe confirmation page",
    status: 200,
    rawResponse: { ...HTML, description: "a page with a button that POSTs to the same URL" },
  }),
  defineRoute({
    ...base,
    method: "POST",
    path: "/u/:token",
    operation: "sending.links.unsubscribe",
    summary: "Unsubscribe (also the RFC 8058 one-click target)",
    status: 200,
    // one-click clients post `List-Unsubscribe=One-Click` as a form; the body carries no other input
    acceptsAnyContentType: true,
    rawResponse: { ...HTML, description: "confirmation page" },
  }),
  defineRoute({
    ...base,
    method: "GET",
    path: "/s/:token",
    operation: "sending.links.subscribePage",
    summary: "Subscribe confirmation page",
    status: 200,
    rawResponse: { ...HTML, description: "a page with a button that POSTs to the same URL" },
  }),
  defineRoute({
    ...base,
    method: "POST",
    path: "/s/:token",
    operation: "sending.links.subscribe",
    summary: "Subscribe again",
    status: 200,
    acceptsAnyContentType: true,
    rawResponse: { ...HTML, description: "confirmation page" },
  }),
  defineRoute({
    ...base,
    method: "GET",
    path: "/m/:token",
    operation: "sending.links.manage",
    summary: "Subscription management page",
    status: 200,
    rawResponse: { ...HTML, description: "the contact's subscription and one checkbox per topic of the project, in a form that POSTs to the same URL" },
  }),
  defineRoute({
    ...base,
    method: "POST",
    path: "/m/:token",
    operation: "sending.links.manageSave",
    summary: "Save the manage page's topic checkboxes (a form: `topic=<id>` for each checked topic)",
    status: 200,
    acceptsAnyContentType: true,
    rawResponse: { ...HTML, description: "the manage page again, with the saved choices" },
  }),
  defineRoute({
    ...base,
    method: "GET",
    path: "/c/:token",
    operation: "sending.links.confirmPage",
    summary: "Double opt-in: the confirmation page (mail scanners fetch links, so a GET only shows a button)",
    status: 200,
    rawResponse: { ...HTML, description: "a page with a button that POSTs to the same URL" },
  }),
  defineRoute({
    ...base,
    method: "POST",
    path: "/c/:token",
    operation: "sending.links.confirm",
    summary: "Double opt-in: confirm the subscription (emits contact.subscribed)",
    status: 200,
    acceptsAnyContentType: true,
    rawResponse: { ...HTML, description: "confirmation page" },
  }),
];

export const SesWebhookResponse = z.object({ success: z.literal(true) });

export const feedbackRoutes = [
  defineRoute({
    method: "POST",
    path: "/webhooks/ses",
    service: "sending",
    operation: "sending.feedback.ses",
    auth: "none",
    tag: "Feedback",
    summary: "Amazon SNS notifications of SES deliveries, bounces and complaints (signature verified)",
    // SNS posts JSON as text/plain; the service parses it and verifies the signature itself, so the
    // body reaches it untouched (a string) rather than through a schema
    acceptsAnyContentType: true,
    response: SesWebhookResponse,
    status: 200,
  }),
];
