import { describe, expect, it } from "vitest";
import { GMAIL_CLIP_BYTES, htmlSizeCheck, imageAltCheck, mergeChecks, oneClickCheck, privateLinksCheck, unsubscribeLinkCheck } from "./content.js";
import { spamCheck } from "./spam.js";

describe("content checks", () => {
  it("html_size: fail past 102 KB, warn near it", () => {
    expect(htmlSizeCheck(GMAIL_CLIP_BYTES + 1).status).toBe("fail");
    expect(htmlSizeCheck(GMAIL_CLIP_BYTES).status).toBe("warn");
    expect(htmlSizeCheck(10_000).status).toBe("pass");
  });

  it("image_alt: warns with the count", () => {
    expect(imageAltCheck({ images: 3, imagesWithoutAlt: 2 })).toMatchObject({ status: "warn", detail: expect.stringMatching(/^2 of 3 images/) });
    expect(imageAltCheck({ images: 0, imagesWithoutAlt: 0 }).status).toBe("pass");
  });

  it("private_links: lists the hosts, skips Mailroom's own and non-http links", () => {
    const links = ["http://127.0.0.1/", "http://10.0.0.1/x", "https://example.com/", "mailto:a@b.c", "http://localhost:8080/u/tok", "http://printer.local/", "{{ url }}"];
    const c = privateLinksCheck({ links, linksNotKept: 0 }, (u) => u.startsWith("http://localhost:8080/"));
    expect(c.status).toBe("fail");
    expect(c.detail).toContain("127.0.0.1 (not a public address (loopback))");
    expect(c.detail).toContain("10.0.0.1 (not a public address (private))");
    expect(c.detail).toContain("printer.local");
    expect(c.detail).not.toContain("localhost");
    expect(privateLinksCheck({ links: ["https://example.com/"], linksNotKept: 0 }, () => false).status).toBe("pass");
  });

  it("unsubscribe_link: an anchor to the unsubscribe or manage page", () => {
    const kind = (u: string) => (u.includes("/u/") ? "unsubscribe" : u.includes("/m/") ? "manage" : null);
    expect(unsubscribeLinkCheck(["https://x.test/", "https://mr.test/u/tok"], kind).status).toBe("pass");
    expect(unsubscribeLinkCheck(["https://mr.test/m/tok"], kind).detail).toContain("manageUrl");
    expect(unsubscribeLinkCheck(["https://x.test/"], kind).status).toBe("fail");
  });

  it("one_click_unsubscribe: both headers and a DKIM signature that verifies", () => {
    const headers = { "List-Unsubscribe": "<https://mr.test/u/tok>", "List-Unsubscribe-Post": "List-Unsubscribe=One-Click" };
    expect(oneClickCheck(headers, true, true).status).toBe("pass");
    expect(oneClickCheck(headers, true, false).status).toBe("warn");
    expect(oneClickCheck({}, true, true).status).toBe("fail");
  });

  it("merges A/B versions into the worst status, naming the versions", () => {
    const pass = { check: "image_alt" as const, status: "pass" as const, detail: "ok" };
    const warn = { check: "image_alt" as const, status: "warn" as const, detail: "1 of 1 image" };
    expect(mergeChecks([{ label: "variant 1", check: pass }, { label: "variant 2", check: warn }])).toEqual({ check: "image_alt", status: "warn", detail: "variant 2: 1 of 1 image" });
  });
});

describe("spamCheck", () => {
  it("maps rspamd's action and names the heaviest symbols", () => {
    const c = spamCheck({ score: 16.2, required_score: 15, action: "reject", symbols: { A: { name: "A", score: 10 }, B: { name: "B", score: -1 }, C: { name: "C", score: 6.2 } } });
    expect(c).toMatchObject({ check: "spam_score", status: "fail" });
    expect(c.detail).toBe("rspamd scores it 16.2 of 15 (action: reject); most from A (10.0), C (6.2).");
    expect(spamCheck({ score: 6, action: "add header" }).status).toBe("warn");
    expect(spamCheck({ score: 0.5, action: "no action" }).status).toBe("pass");
    expect(spamCheck({ score: 0.5, action: "something new" }).status).toBe("warn");
  });
});
