import { describe, expect, it } from "vitest";
import { MAX_SCANNED_LINKS, scanHtml } from "./html-scan.js";

describe("scanHtml", () => {
  it("counts images without a non-empty alt", () => {
    const f = scanHtml('<img src="a.png" alt="Logo"><IMG SRC="b.png"><img src="c.png" alt=""><img src="d.png" alt="  "><img alt=x src=e.png>');
    expect(f.images).toBe(5);
    expect(f.imagesWithoutAlt).toBe(3);
  });

  it("collects distinct href and src values, decoded, and anchors apart", () => {
    const f = scanHtml('<a href="https://x.test/?a=1&amp;b=2">x</a><a href=" https://x.test/?a=1&b=2 ">again</a><img src="http://10.0.0.1/p.png" alt="p"><link href="http://127.0.0.1/s.css">');
    expect(f.links).toEqual(["https://x.test/?a=1&b=2", "http://10.0.0.1/p.png", "http://127.0.0.1/s.css"]);
    expect(f.anchors).toEqual(["https://x.test/?a=1&b=2"]);
  });

  it("keeps at most MAX_SCANNED_LINKS links and counts the rest", () => {
    const html = Array.from({ length: MAX_SCANNED_LINKS + 7 }, (_, i) => `<a href="https://x.test/${i}">${i}</a>`).join("");
    const f = scanHtml(html);
    expect(f.links).toHaveLength(MAX_SCANNED_LINKS);
    expect(f.linksNotKept).toBe(7);
  });

  it("reads hostile markup in time proportional to its length", () => {
    const html = `${"<a href=".repeat(200_000)}${"<img ".repeat(100_000)}`;
    const started = performance.now();
    scanHtml(html);
    expect(performance.now() - started).toBeLessThan(2000);
  });
});
