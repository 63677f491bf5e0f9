import { localHostReason } from "@mailroom/kit";
import type { PreSendCheck } from "@mailroom/contracts";
import type { HtmlFacts } from "./html-scan.js";

/** Gmail shows "[Message clipped]" past 102 KB of HTML (its figure is 102 KiB): the rest, the unsubscribe link often among it, is hidden. */
export const GMAIL_CLIP_BYTES = 102 * 1024;
/** Warn from here: contact data, a longer name, or tracking on another project can push a body over. */
export const NEAR_CLIP_BYTES = 90 * 1024;
/** Hosts named in a detail; the rest are counted. */
const NAMED = 5;

const check = (name: PreSendCheck["check"], status: PreSendCheck["status"], detail: string): PreSendCheck => ({ check: name, status, detail });
const kb = (bytes: number) => `${(bytes / 1024).toFixed(1)} KB`;

/** The rendered HTML's size in UTF-8 bytes (what Gmail counts), tracking links and pixel included. */
export function htmlSizeCheck(bytes: number): PreSendCheck {
  if (bytes > GMAIL_CLIP_BYTES) return check("html_size", "fail", `The HTML is ${kb(bytes)}; Gmail clips messages over 102 KB and hides the rest, unsubscribe link included. Shorten it.`);
  if (bytes > NEAR_CLIP_BYTES) return check("html_size", "warn", `The HTML is ${kb(bytes)}, close to Gmail's 102 KB clipping limit; longer contact data could cross it.`);
  return check("html_size", "pass", `The HTML is ${kb(bytes)}, under Gmail's 102 KB clipping limit.`);
}

export function imageAltCheck(f: Pick<HtmlFacts, "images" | "imagesWithoutAlt">): PreSendCheck {
  if (f.imagesWithoutAlt > 0) {
    const n = f.imagesWithoutAlt;
    return check("image_alt", "warn", `${n} of ${f.images} image${f.images === 1 ? "" : "s"} ${n === 1 ? "has" : "have"} no alt text; screen readers and mail clients that block images show nothing in ${n === 1 ? "its" : "their"} place.`);
  }
  return check("image_alt", "pass", f.images === 0 ? "No images." : `Every image (${f.images}) has alt text.`);
}

/** The host of an absolute http(s) URL, or null for anything else (relative, mailto:, cid:, data:, Liquid left in). */
function httpHost(link: string): string | null {
  if (!/^https?:\/\//i.test(link)) return null;
  try {
    return new URL(link).hostname;
  } catch {
    return null;
  }
}

/**
 * Links (`href`, `src`) to a private, loopback, link-local or local host (the webhook address rule of
 * kit `localHostReason`, from the host alone, no lookup): they work on the author's machine and
 * nowhere else, or point readers at an internal network. Mailroom's own links are skipped by the
 * caller (PUBLIC_URL may well be localhost in development).
 */
export function privateLinksCheck(f: Pick<HtmlFacts, "links" | "linksNotKept">, isOwn: (url: string) => boolean): PreSendCheck {
  const bad = new Map<string, string>();
  for (const link of f.links) {
    const host = httpHost(link);
    if (host === null || isOwn(link) || bad.has(host)) continue;
    const reason = localHostReason(host);
    if (reason) bad.set(host, reason);
  }
  const more = f.linksNotKept > 0 ? ` (${f.linksNotKept} more links past the first ${f.links.length} were not checked)` : "";
  if (bad.size === 0) return check("private_links", "pass", `No link to a private or local host${more}.`);
  const named = [...bad].slice(0, NAMED).map(([host, reason]) => `${host} (${reason})`);
  const rest = bad.size > NAMED ? ` and ${bad.size - NAMED} more` : "";
  return check("private_links", "fail", `Links to hosts readers cannot reach: ${named.join(", ")}${rest}${more}.`);
}

/**
 * A marketing body must let the reader unsubscribe from the message itself (CAN-SPAM, Gmail's bulk
 * rules): a link (`<a href>`) to the email's `{{ unsubscribeUrl }}`, or to `{{ manageUrl }}`, whose
 * page unsubscribes too. `kindOf` names which of Mailroom's pages a URL is, if any.
 */
export function unsubscribeLinkCheck(anchors: string[], kindOf: (url: string) => "unsubscribe" | "manage" | null): PreSendCheck {
  const kinds = new Set(anchors.map(kindOf));
  if (kinds.has("unsubscribe")) return check("unsubscribe_link", "pass", "The body links to {{ unsubscribeUrl }}.");
  if (kinds.has("manage")) return check("unsubscribe_link", "pass", "The body links to {{ manageUrl }}, whose page unsubscribes.");
  return check("unsubscribe_link", "fail", 'The body has no unsubscribe link. Add <a href="{{ unsubscribeUrl }}">Unsubscribe</a>.');
}

/**
 * RFC 8058 one-click: both headers present on the message as composed, and a DKIM signature that
 * covers them and verifies (receivers ignore unsigned one-click headers).
 */
export function oneClickCheck(headers: Record<string, string>, marketing: boolean, dkimPasses: boolean): PreSendCheck {
  if (!marketing) return check("one_click_unsubscribe", "pass", "Transactional mail: no List-Unsubscribe needed.");
  const has = (name: string) => Object.keys(headers).some((h) => h.toLowerCase() === name);
  const oneClick = Object.entries(headers).some(([h, v]) => h.toLowerCase() === "list-unsubscribe-post" && v === "List-Unsubscribe=One-Click");
  if (!has("list-unsubscribe") || !oneClick) return check("one_click_unsubscribe", "fail", "The message would go without List-Unsubscribe and List-Unsubscribe-Post headers.");
  if (!dkimPasses) return check("one_click_unsubscribe", "warn", "Mailroom adds List-Unsubscribe and List-Unsubscribe-Post (RFC 8058), but receivers honour them only under a valid DKIM signature: fix DKIM.");
  return check("one_click_unsubscribe", "pass", "Mailroom adds List-Unsubscribe and List-Unsubscribe-Post: List-Unsubscribe=One-Click (RFC 8058), covered by the DKIM signature.");
}

/**
 * One check of several versions of a message (A/B variants) as one line: the worst status, and the
 * details of the versions that are not a pass (all of them, labelled, when every version passes
 * differently). With one version it is that version's check.
 */
export function mergeChecks(perContent: Array<{ label: string | null; check: PreSendCheck }>): PreSendCheck {
  if (perContent.length === 1) return perContent[0]!.check;
  const rank = { pass: 0, warn: 1, fail: 2 } as const;
  const worst = perContent.reduce((w, c) => (rank[c.check.status] > rank[w] ? c.check.status : w), "pass" as PreSendCheck["status"]);
  const shown = worst === "pass" ? perContent.slice(0, 1) : perContent.filter((c) => c.check.status !== "pass");
  const detail = shown.map((c) => (c.label && worst !== "pass" ? `${c.label}: ${c.check.detail}` : c.check.detail)).join(" ");
  return { check: perContent[0]!.check.check, status: worst, detail };
}
