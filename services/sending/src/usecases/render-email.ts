import { setImmediate as nextTurn } from "node:timers/promises";
import { type ParsedTemplate, renderTemplate } from "../domain/render.js";
import { addTracking } from "../domain/tracking.js";
import type { Ctx } from "./context.js";

export interface RenderedEmail {
  subject: string;
  html: string;
  links: string[];
}

/**
 * A render that took this long gives the event loop a turn before the next one starts. A Liquid
 * render never yields on its own, so a batch of slow ones (each within LIQUID_RENDER_LIMIT_MS)
 * would otherwise hold every other project's requests for the sum of them. The usual render takes
 * well under a millisecond and continues at once.
 */
const YIELD_AFTER_MS = 5;

/**
 * Renders one email when it is queued: the template with the subscription links of this email,
 * then (tracking on) every http(s) link rewritten to its click URL and the open pixel added. The
 * subscription links are Mailroom's own and stay as they are.
 */
export async function renderEmail(
  ctx: Ctx,
  a: { parsed: ParsedTemplate; vars: Record<string, unknown>; emailId: string; projectId: string; tracking: boolean },
): Promise<RenderedEmail> {
  const started = performance.now();
  try {
    const rendered = await renderTemplate(a.parsed, ctx.links.withSubscriptionUrls(a.vars, a.emailId, a.projectId));
    if (!a.tracking) return { ...rendered, links: [] };
    const tracked = addTracking(rendered.html, {
      click: (index) => ctx.links.url("c", a.emailId, a.projectId, index),
      pixel: ctx.links.url("o", a.emailId, a.projectId),
      isOwn: (url) => ctx.links.isOwn(url),
    });
    return { subject: rendered.subject, ...tracked };
  } finally {
    if (performance.now() - started >= YIELD_AFTER_MS) await nextTurn();
  }
}

/** Tracking is on unless the project turned it off or this send/enqueue says `tracking: false`. */
export async function trackingOn(ctx: Ctx, projectId: string, requested: boolean | undefined): Promise<boolean> {
  if (requested === false) return false;
  return (await ctx.settings.get(projectId)).tracking;
}
