import { decodeHTMLAttribute } from "entities";
import { QuoteType, Tokenizer, type TokenizerCallbacks } from "htmlparser2";

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

const MAYBE_TAGS = /<a|<\/body/i;

/** A piece of the source replaced (or, when start = end, text inserted) in the output. */
interface Edit {
  start: number;
  end: number;
  text: string;
}

/** Where one start tag's first `href` value sits in the source, quotes included. */
interface Href {
  start: number;
  end: number;
  quote: QuoteType;
  valueStart: number;
  valueEnd: number;
}

/**
 * Rewrites every http(s) link of rendered HTML to its click URL and adds the open pixel. The link's
 * target is the decoded attribute value (`&amp;` → `&`), which is where a browser would have gone.
 *
 * Rendered HTML is the tenant's, so it is read with htmlparser2's tokenizer, a state machine that
 * looks at each character once: unclosed tags, `<a ` repeated and huge attributes all cost time in
 * proportion to their length (regular expressions over HTML took seconds on such input). Only the
 * `href` values that change are replaced; every other byte of the document stays as it was.
 */
export function addTracking(html: string, urls: TrackingUrls): TrackedHtml {
  const links: string[] = [];
  const indexOf = new Map<string, number>();
  const edits: Edit[] = [];
  const track = (href: Href, source: string, offset: number) => {
    const target = decodeHTMLAttribute(source.slice(href.valueStart, href.valueEnd)).trim();
    if (!/^https?:\/\//i.test(target) || urls.isOwn(target)) return;
    let index = indexOf.get(target);
    if (index === undefined) {
      if (links.length >= MAX_TRACKED_LINKS) return;
      index = links.push(target) - 1;
      indexOf.set(target, index);
    }
    edits.push({ start: offset + href.start, end: offset + href.end, text: `"${urls.click(index)}"` });
  };
  // Without `<a` (which `<area` starts with too) and `</body` anywhere there is nothing to find: the
  // pixel goes at the end, as the scan would have put it (this search has no backtracking).
  const bodyEnd = MAYBE_TAGS.test(html) ? scanTags(html, 0, (href, source, offset) => track(href, source, offset)) : undefined;
  const pixel = `<img src="${urls.pixel}" width="1" height="1" alt="" style="display:block;width:1px;height:1px;border:0;">`;
  const at = bodyEnd ?? html.length;
  // edits are in document order; the pixel goes in among them at its place
  let i = edits.findIndex((e) => e.start >= at);
  if (i < 0) i = edits.length;
  edits.splice(i, 0, { start: at, end: at, text: pixel });
  return { html: applyEdits(html, edits), links };
}

function applyEdits(source: string, edits: Edit[]): string {
  const parts: string[] = [];
  let from = 0;
  for (const e of edits) {
    parts.push(source.slice(from, e.start), e.text);
    from = e.end;
  }
  parts.push(source.slice(from));
  return parts.join("");
}

const lower = (c: number) => c | 0x20;
const isA = (s: string, start: number, end: number) => end - start === 1 && lower(s.charCodeAt(start)) === 0x61;
const is4 = (s: string, start: number, end: number, name: string) => end - start === 4 && s.slice(start, end).toLowerCase() === name;

/**
 * Calls `onHref` for the first `href` of every `<a>` and `<area>` start tag of `source`, and answers
 * where the last `</body>` starts. A downlevel-hidden conditional comment (`<!--[if mso]> … <![endif]-->`)
 * is markup Outlook renders, so its content is scanned for links too (comments do not nest, so this
 * goes one level deep and stays linear).
 */
function scanTags(source: string, offset: number, onHref: (href: Href, source: string, offset: number) => void): number | undefined {
  let anchor = false;
  let inHref = false;
  let href: Href | undefined;
  let valueStart = 0;
  let valueEnd = 0;
  let bodyEnd: number | undefined;
  const ignore = () => undefined;
  const cbs: TokenizerCallbacks = {
    onopentagname(start, end) {
      anchor = isA(source, start, end) || is4(source, start, end, "area");
      href = undefined;
    },
    onattribname(start, end) {
      inHref = anchor && href === undefined && is4(source, start, end, "href");
    },
    onattribdata(start, end) {
      if (!inHref) return;
      valueStart = start;
      valueEnd = end;
    },
    onattribentity: ignore, // entities stay undecoded in the source (decodeEntities: false)
    onattribend(quote, end) {
      if (!inHref) return;
      inHref = false;
      if (quote === QuoteType.NoValue) href = { start: end, end, quote, valueStart: end, valueEnd: end };
      else {
        const quoted = quote === QuoteType.Double || quote === QuoteType.Single;
        href = { start: quoted ? valueStart - 1 : valueStart, end, quote, valueStart, valueEnd };
      }
    },
    onopentagend() {
      if (anchor && href && href.quote !== QuoteType.NoValue) onHref(href, source, offset);
      anchor = false;
      href = undefined;
    },
    onselfclosingtag() {
      cbs.onopentagend(0);
    },
    onclosetag(start, end) {
      if (is4(source, start, end, "body")) bodyEnd = offset + start - 2; // the `</` before the name
    },
    oncomment(start, end) {
      if (offset === 0 && source.startsWith("[if", start)) scanTags(source.slice(start, end), start, onHref);
    },
    oncdata: ignore,
    ondeclaration: ignore,
    onprocessinginstruction: ignore,
    ontext: ignore,
    ontextentity: ignore,
    onend: ignore,
  };
  const tokenizer = new Tokenizer({ decodeEntities: false }, cbs);
  tokenizer.write(source);
  tokenizer.end();
  return bodyEnd;
}
