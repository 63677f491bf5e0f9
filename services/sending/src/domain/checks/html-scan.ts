import { Parser } from "htmlparser2";

/** Distinct link targets kept from one body; the rest are counted, not kept (bounded memory). */
export const MAX_SCANNED_LINKS = 1000;

export interface HtmlFacts {
  /** `<img>` tags without an `alt`, or with one that is only white space. */
  imagesWithoutAlt: number;
  images: number;
  /** Distinct `href`/`src` values (decoded, trimmed), in document order, at most MAX_SCANNED_LINKS. */
  links: string[];
  /** Distinct targets beyond MAX_SCANNED_LINKS, not kept. */
  linksNotKept: number;
  /** `href`s of `<a>`/`<area>` tags: where a reader can click. */
  anchors: string[];
}

const LINK_ATTRIBUTES = ["href", "src"] as const;

/**
 * What the pre-send checks need from a rendered body, in one pass of htmlparser2 (a state machine
 * that reads each character once: the body is the tenant's, and regular expressions over HTML can
 * take seconds on crafted input). Attribute values are decoded (`&amp;` → `&`), as a mail client reads them.
 */
export function scanHtml(html: string): HtmlFacts {
  const facts: HtmlFacts = { imagesWithoutAlt: 0, images: 0, links: [], linksNotKept: 0, anchors: [] };
  const seen = new Set<string>();
  const anchors = new Set<string>();
  const parser = new Parser(
    {
      onopentag(name, attribs) {
        if (name === "img") {
          facts.images++;
          if (!attribs.alt?.trim()) facts.imagesWithoutAlt++;
        }
        for (const attr of LINK_ATTRIBUTES) {
          const value = attribs[attr]?.trim();
          if (!value || seen.has(value)) continue;
          if (seen.size >= MAX_SCANNED_LINKS) {
            facts.linksNotKept++;
            continue;
          }
          seen.add(value);
          facts.links.push(value);
        }
        if ((name === "a" || name === "area") && attribs.href && anchors.size < MAX_SCANNED_LINKS) anchors.add(attribs.href.trim());
      },
    },
    { decodeEntities: true, lowerCaseTags: true, lowerCaseAttributeNames: true },
  );
  parser.write(html);
  parser.end();
  facts.anchors = [...anchors];
  return facts;
}
