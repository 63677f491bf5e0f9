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
});
