import { describe, expect, it } from "vitest";
import { addTracking, type TrackingUrls } from "./tracking.js";

const urls: TrackingUrls = {
  click: (i) => `https://m.example/t/c/T${i}`,
  pixel: "https://m.example/t/o/P",
  isOwn: (u) => u.startsWith("https://m.example/u/"),
};

describe("addTracking", () => {
  it("rewrites http(s) links, one index per distinct target, and decodes the attribute", () => {
    const html = `<p><a href="https://a.example/x?a=1&amp;b=2">a</a> <A class="c" HREF='http://b.example'>b</A>
      <a href="https://a.example/x?a=1&b=2">again</a> <a href=https://c.example/>c</a></p>`;
    const out = addTracking(html, urls);
    expect(out.links).toEqual(["https://a.example/x?a=1&b=2", "http://b.example", "https://c.example/"]);
    expect(out.html).toContain(`<a href="https://m.example/t/c/T0">a</a>`);
    expect(out.html).toContain(`<A class="c" HREF="https://m.example/t/c/T1">b</A>`);
    expect(out.html).toContain(`<a href="https://m.example/t/c/T0">again</a>`);
    expect(out.html).toContain(`<a href="https://m.example/t/c/T2">c</a>`);
  });

  it("leaves mailto, anchors, cid, own links and attributes that only look like href alone", () => {
    const html = `<a href="mailto:x@y">m</a><a href="#top">t</a><a href="https://m.example/u/tok">u</a>
      <a data-href="https://z.example" title="a > b">d</a><img src="https://i.example/x.png">`;
    const out = addTracking(html, urls);
    expect(out.links).toEqual([]);
    expect(out.html).toContain(`<a href="mailto:x@y">m</a><a href="#top">t</a><a href="https://m.example/u/tok">u</a>`);
    expect(out.html).toContain(`<a data-href="https://z.example" title="a > b">d</a>`);
  });

  it("puts the pixel before the last </body>, or at the end", () => {
    expect(addTracking("<html><body><p>x</p></body></html>", urls).html).toBe(
      `<html><body><p>x</p><img src="https://m.example/t/o/P" width="1" height="1" alt="" style="display:block;width:1px;height:1px;border:0;"></body></html>`,
    );
    expect(addTracking("<p>x</p>", urls).html.startsWith("<p>x</p><img src=")).toBe(true);
  });

  it("changes only the href values it rewrites: every other byte stays", () => {
    const html = `<!DOCTYPE html>\n<html><head><style>a{color:red}</style></head><body>\n<a  class=x  href = 'https://a.example/?q=1&amp;r=2'  >a &amp; b</a>\n<br/><p title="<a href='https://no.example'>">é ✓</p>\n</body>\n</html>`;
    const out = addTracking(html, urls);
    expect(out.links).toEqual(["https://a.example/?q=1&r=2"]);
    expect(out.html).toBe(html.replace("'https://a.example/?q=1&amp;r=2'", '"https://m.example/t/c/T0"').replace("</body>", `${pixel}</body>`));
  });

  it("leaves links in comments, scripts, styles and text alone, but rewrites those in Outlook conditional comments", () => {
    const html = `<!-- <a href="https://c.example/">c</a> --><script>var s = '<a href="https://s.example/">';</script>
      <textarea><a href="https://t.example/"></textarea><!--[if mso]><a href="https://o.example/">o</a><![endif]-->`;
    const out = addTracking(html, urls);
    expect(out.links).toEqual(["https://o.example/"]);
    expect(out.html).toContain(`<!--[if mso]><a href="https://m.example/t/c/T0">o</a><![endif]-->`);
    expect(out.html).toContain(`<!-- <a href="https://c.example/">c</a> -->`);
  });

  it("takes the first href of a tag, and a self-closing or unclosed tag as HTML would", () => {
    const out = addTracking(`<a href="https://1.example/" href="https://2.example/"/>x<a href="https://3.example/"`, urls);
    expect(out.links).toEqual(["https://1.example/"]);
    expect(out.html).toBe(`<a href="https://m.example/t/c/T0" href="https://2.example/"/>x<a href="https://3.example/"${pixel}`);
  });

  it("puts the pixel before the last </body> of several, not one inside a comment", () => {
    const out = addTracking("<body>a</body>b</BODY >c<!-- </body> -->", urls);
    expect(out.html).toBe(`<body>a</body>b${pixel}</BODY >c<!-- </body> -->`);
  });

  // Rendered HTML is the tenant's: each of these took seconds (or minutes) with regular expressions.
  const hostile: Array<[string, string, number]> = [
    ["200 KB of '<a '", "<a ".repeat(70_000), 0],
    ["'<a href=' repeated", "<a href=".repeat(25_000), 0],
    ["unclosed tags", "<a href='https://u.example/' ".repeat(20_000), 0],
    ["an unclosed quote", `<a href="${"x".repeat(1_000_000)}`, 0],
    ["a huge attribute", `<a title="${"y".repeat(1_000_000)}" href="https://big.example/">x</a>`, 1],
    ["a huge href", `<a href="https://big.example/${"z".repeat(1_000_000)}">x</a>`, 1],
    ["many </body>", "</body >".repeat(25_000), 0],
    ["many links", '<a href="https://l.example/">l</a>'.repeat(6000), 1],
  ];
  it.each(hostile)("tracks %s in linear time", (_name, html, links) => {
    const started = performance.now();
    const out = addTracking(html, urls);
    expect(performance.now() - started).toBeLessThan(300);
    expect(out.links).toHaveLength(links);
    expect(out.html).toContain(pixel);
  });
});

const pixel = `<img src="https://m.example/t/o/P" width="1" height="1" alt="" style="display:block;width:1px;height:1px;border:0;">`;
