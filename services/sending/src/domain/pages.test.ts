import { describe, expect, it } from "vitest";
import { renderPage } from "./pages.js";

describe("a subscription page", () => {
  it("shows what a tenant named (a topic, its description) as text, never as markup", () => {
    const hostile = `"><script>alert(1)</script><a href='x'>`;
    const html = renderPage({
      title: "Manage",
      message: "Pick",
      address: `a${hostile}@b.example`,
      topics: { url: "https://m.example/manage?t=1&u=2", items: [{ id: "t1", name: hostile, description: hostile, checked: true }] },
    });
    expect(html).not.toContain("<script");
    expect(html).not.toContain("<a href='x'>");
    expect(html).toContain("&#60;script&#62;alert(1)&#60;/script&#62;");
    expect(html).toContain('action="https://m.example/manage?t=1&#38;u=2"');
  });
});
