import { describe, expect, it } from "vitest";
import { escapeHtml, tenantName } from "./system-text.js";

describe("tenant text in Mailroom's own mail", () => {
  it("keeps a short name as it is", () => {
    expect(tenantName("Acme Newsletter")).toBe("Acme Newsletter");
  });

  it("cuts a long name to 60 characters, counting characters rather than UTF-16 units", () => {
    const name = tenantName("Your account is suspended. Call +1 555 0100 now to restore access and avoid fees");
    expect([...name].length).toBeLessThanOrEqual(60);
    expect(name).toMatch(/^Your account is suspended\. Call \+1 555 0100 now to restore.*…$/);
    expect([...tenantName("😀".repeat(80))]).toHaveLength(60);
  });

  it("makes one line of line breaks, tabs and invisible format characters", () => {
    expect(tenantName("Acme\r\nBcc: victim@example.com\t\u202eevil\u200b")).toBe("Acme Bcc: victim@example.com evil");
  });

  it("escapes every character HTML gives a meaning to", () => {
    expect(escapeHtml(`<a href="x">'&'</a>`)).toBe("&#60;a href=&#34;x&#34;&#62;&#39;&#38;&#39;&#60;/a&#62;");
  });
});
