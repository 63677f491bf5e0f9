import { describe, expect, it } from "vitest";
import { invitationEmail, lifetimeInWords } from "./invitation-email.js";

describe("an invitation email", () => {
  it("states the link's lifetime in the largest unit that is exact", () => {
    expect(lifetimeInWords(7 * 86_400_000)).toBe("7 days");
    expect(lifetimeInWords(86_400_000)).toBe("1 day");
    expect(lifetimeInWords(36 * 3_600_000)).toBe("36 hours");
    expect(lifetimeInWords(90 * 60_000)).toBe("90 minutes");
    expect(lifetimeInWords(1000)).toBe("1 second");
    expect(lifetimeInWords(61_500)).toBe("61 seconds");
  });

  it("says how long the link works, as configured", () => {
    const { html } = invitationEmail({ projectName: "Acme", inviter: "Ada", role: "editor", link: "https://x.test/i/t", ttlMs: 2 * 86_400_000 });
    expect(html).toContain("works once and for 2 days");
  });

  it("escapes every name that comes from users and keeps the subject on one line", () => {
    const { subject, html } = invitationEmail({ projectName: "<b>Acme</b>", inviter: "Ada\r\nBcc: x", role: "editor", link: "https://x.test/i/t", ttlMs: 86_400_000 });
    expect(html).not.toContain("<b>Acme</b>");
    expect(html).toContain("&#60;b&#62;Acme");
    expect(subject).not.toMatch(/[\r\n]/);
  });
});
