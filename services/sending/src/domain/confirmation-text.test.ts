import { describe, expect, it } from "vitest";
import { confirmationText } from "./confirmation-text.js";

describe("Mailroom's own confirmation email", () => {
  it("names the project and the address, and carries the link", () => {
    const { subject, html } = confirmationText("Acme News", "ada@example.com", "https://mail.example/c/tok");
    expect(subject).toBe("Confirm your subscription to Acme News");
    expect(html).toContain("<strong>Acme News</strong> at ada@example.com");
    expect(html).toContain('<a href="https://mail.example/c/tok">Yes, subscribe me</a>');
  });

  it("takes no more of a hostile project name than one escaped line of 60 characters", () => {
    const hostile = `Your account is suspended</strong><a href="https://evil.example">Log in here</a>\r\nReply-To: x@evil.example ${"!".repeat(100)}`;
    const { subject, html } = confirmationText(hostile, "ada@example.com", "https://mail.example/c/tok");
    const shown = /<strong>(.*)<\/strong>/.exec(html)![1]!;
    expect(html).not.toContain("https://evil.example");
    expect(html).not.toContain("<a href=\"https://evil");
    expect(subject).not.toMatch(/[\r\n]/);
    expect([...subject.replace("Confirm your subscription to ", "")].length).toBeLessThanOrEqual(60);
    expect(shown).toMatch(/^Your account is suspended&#60;\/strong&#62;/);
  });

  it("says 'a project' when the project has no name to give", () => {
    expect(confirmationText(null, "ada@example.com", "https://x/c/t").subject).toBe("Confirm your subscription to a project");
  });
});
