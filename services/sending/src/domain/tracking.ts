import { decodeHTMLAttribute } from "entities";

/** Links beyond this many distinct targets stay as they are (a click token holds a 16-bit index). */
export const MAX_TRACKED_LINKS = 1000;

export interface TrackingUrls {
  /** URL of the click token for the link with this index. */
  click(index: number): string;
  pixel: string;
  /** Mailroom's own links (unsubscribe, subscribe, manage): never rewritten. */
  isOwn(url: string): boolean;
}

export interface TrackedHtml {
  html: string;
  /** Distinct link targets, in index order: what the click tokens name. */
  links: string[];
}

// An <a> or <area> start tag; attribute values may hold `>` inside quotes.
const TAG_RE = /<(a|area)\b((?:[^>"']|"[^"]*"|'[^']*')*)>/gi;
const HREF_RE = /(\shref\s*=\s*)(?:"([^"]*)"|'([^']*)'|([^\s"'=<>`]+))/i;

/**
 * Rewrites every http(s) link of rendered HTML to its click URL and adds the open pixel. The link's
 * target is the decoded attribute value (`&amp;` → `&`), which is where a browser would have gone.
 */
export function addTracking(html: string, urls: TrackingUrls): TrackedHtml {
  const links: string[] = [];
  const indexOf = new Map<string, number>();
  const rewritten = html.replace(TAG_RE, (tag: string, name: string, attrs: string) => {
    const m = HREF_RE.exec(attrs);
    if (!m) return tag;
    const target = decodeHTMLAttribute(m[2] ?? m[3] ?? m[4] ?? "").trim();
    if (!/^https?:\/\//i.test(target) || urls.isOwn(target)) return tag;
    let index = indexOf.get(target);
    if (index === undefined) {
      if (links.length >= MAX_TRACKED_LINKS) return tag;
      index = links.push(target) - 1;
      indexOf.set(target, index);
    }
    const newAttrs = attrs.slice(0, m.index) + `${m[1]}"${urls.click(index)}"` + attrs.slice(m.index + m[0].length);
    return `<${name}${newAttrs}>`;
  });
  const pixel = `<img src="${urls.pixel}" width="1" height="1" alt="" style="display:block;width:1px;height:1px;border:0;">`;
  const bodyEnd = rewritten.search(/<\/body\s*>(?![\s\S]*<\/body\s*>)/i);
  const withPixel = bodyEnd >= 0 ? rewritten.slice(0, bodyEnd) + pixel + rewritten.slice(bodyEnd) : rewritten + pixel;
  return { html: withPixel, links };
}
