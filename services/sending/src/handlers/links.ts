import { AppError, type HttpReply, linkRoutes, routeOf } from "@mailroom/contracts";
import type { RpcServer } from "@mailroom/kit";
import type { LinkSigner } from "../domain/links.js";
import { PAGE_HEADERS, renderPage, type Page } from "../domain/pages.js";
import type { EngagementRecorder } from "../usecases/engagement.js";
import type { Subscriptions } from "../usecases/subscriptions.js";

/** A 1x1 transparent GIF. */
const PIXEL = "R0lGODlhAQABAIAAAAAAAP///yH5BAEAAAAALAAAAAABAAEAAAIBRAA7";
const NO_STORE = { "cache-control": "no-store, max-age=0" };

const html = (page: Page): HttpReply => ({
  status: 200,
  headers: PAGE_HEADERS,
  raw: { contentType: "text/html; charset=utf-8", base64: Buffer.from(renderPage(page)).toString("base64") },
});

/** The public links of decisions.md §6. A tampered or foreign token is 404 and records nothing. */
export function registerLinks(server: RpcServer, links: LinkSigner, engagement: EngagementRecorder, pages: Subscriptions): void {
  server
    .route(routeOf(linkRoutes, "sending.links.open"), async ({ params }) => {
      const t = links.verify("o", params.token);
      if (!t?.projectId || !(await engagement.linksOf(t.emailId, t.projectId))) throw AppError.notFound("Link");
      engagement.open(t.emailId, t.projectId);
      return { status: 200, headers: NO_STORE, raw: { contentType: "image/gif", base64: PIXEL } };
    })
    .route(routeOf(linkRoutes, "sending.links.click"), async ({ params }) => {
      const t = links.verify("c", params.token);
      // The target is the stored link the token names: the redirect can only go where the email pointed.
      const target = t?.projectId ? (await engagement.linksOf(t.emailId, t.projectId))?.[t.index] : undefined;
      if (!t?.projectId || !target) throw AppError.notFound("Link");
      engagement.click(t.emailId, t.projectId, t.index);
      return { status: 302, headers: { ...NO_STORE, location: target, "referrer-policy": "no-referrer" } };
    })
    .route(routeOf(linkRoutes, "sending.links.unsubscribePage"), async ({ params }) => html(await pages.unsubscribePage(params.token)))
    .route(routeOf(linkRoutes, "sending.links.unsubscribe"), async ({ params }) => html(await pages.unsubscribe(params.token)))
    .route(routeOf(linkRoutes, "sending.links.subscribePage"), async ({ params }) => html(await pages.subscribePage(params.token)))
    .route(routeOf(linkRoutes, "sending.links.subscribe"), async ({ params }) => html(await pages.subscribe(params.token)))
    .route(routeOf(linkRoutes, "sending.links.manage"), async ({ params }) => html(await pages.managePage(params.token)))
    .route(routeOf(linkRoutes, "sending.links.manageSave"), async ({ params, body }) => html(await pages.saveTopics(params.token, body)))
    .route(routeOf(linkRoutes, "sending.links.confirmPage"), async ({ params }) => html(await pages.confirmPage(params.token)))
    .route(routeOf(linkRoutes, "sending.links.confirm"), async ({ params }) => html(await pages.confirm(params.token)));
}
