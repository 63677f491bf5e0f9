import { setImmediate as nextTurn } from "node:timers/promises";
import { type ParsedTemplate, renderTemplate } from "../domain/render.js";
import type { LinkSigner } from "../domain/links.js";
import { addTracking } from "../domain/tracking.js";
import type { ProjectSettings } from "./lookups.js";

export interface RenderedEmail {
  subject: string;
  html: string;
  /** The plain-text alternative (untracked: links in text stay as written). */
  text?: string;
  links: string[];
}

/**
 * A render that took this long gives the event loop a turn before the next one starts. A Liquid
 * render never yields on its own, so a batch of slow ones (each within LIQUID_RENDER_LIMIT_MS)
 * would otherwise hold every other project's requests for the sum of them. The usual render takes
 * well under a millisecond and continues at once.
 */
const YIELD_AFTER_MS = 5;

/** Each email's content, rendered once when it is queued (/v1/send, campaigns, workflows). */
export class Renderer {
  constructor(
    private readonly links: LinkSigner,
    private readonly settings: ProjectSettings,
  ) {}

  /**
   * The template with the subscription links of this email, then (tracking on) every http(s) link
   * rewritten to its click URL and the open pixel added. The subscription links are Mailroom's own
   * and stay as they are.
   */
  async render(a: { parsed: ParsedTemplate; vars: Record<string, unknown>; emailId: string; projectId: string; tracking: boolean }): Promise<RenderedEmail> {
    const started = performance.now();
    const links = this.links;
    try {
      const rendered = await renderTemplate(a.parsed, links.withSubscriptionUrls(a.vars, a.emailId, a.projectId));
      if (!a.tracking) return { ...rendered, links: [] };
      const tracked = addTracking(rendered.html, {
        click: (index) => links.url("c", a.emailId, a.projectId, index),
        pixel: links.url("o", a.emailId, a.projectId),
        isOwn: (url) => links.isOwn(url),
      });
      return { subject: rendered.subject, ...tracked, ...(rendered.text !== undefined ? { text: rendered.text } : {}) };
    } finally {
      if (performance.now() - started >= YIELD_AFTER_MS) await nextTurn();
    }
  }

  /** Tracking is on unless the project turned it off or this send/enqueue says `tracking: false`. */
  async trackingOn(projectId: string, requested: boolean | undefined): Promise<boolean> {
    if (requested === false) return false;
    return (await this.settings.get(projectId)).tracking;
  }
}
