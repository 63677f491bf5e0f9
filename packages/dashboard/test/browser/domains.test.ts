import { randomBytes } from "node:crypto";
import { describe, expect, it } from "vitest";
import type { Page } from "playwright-core";
import { addZones, waitFor } from "@mailroom/testkit";
import { a11yViolations, type DashboardUser } from "@mailroom/testkit/browser";
import { browserAndOwner } from "./fixture.js";

const fx = browserAndOwner({ members: ["editor"] });
const { platform } = fx;

const uniqueDomain = () => `dash-${randomBytes(5).toString("hex")}.mailroom.test`;


async function openDomains(user: DashboardUser): Promise<Page> {
  const page = await fx.open("/app/domains", { user, context: { permissions: ["clipboard-read", "clipboard-write"] } });
  await page.getByRole("heading", { name: "Domains" }).waitFor();
  return page;
}

// By the record's first cell, not any text in the row: a DKIM key is random base64 and now and then spells "spf".
const recordRow = (page: Page, purpose: string) =>
  page
    .getByRole("table", { name: "DNS records" })
    .getByRole("row")
    .filter({ has: page.getByRole("cell", { name: new RegExp(`^${purpose} \\(`) }) });

describe("the Domains page", () => {
  it("adds a domain by keyboard, marks the missing record, verifies once it is published, copies a value, deletes", async () => {
    const page = await openDomains(fx.owner);
    await page.getByText("No domains yet.").waitFor();
    expect(await a11yViolations(page)).toEqual([]);

    const domain = uniqueDomain();
    await page.getByRole("textbox", { name: /^Domain/ }).focus();
    await page.keyboard.type(domain.toUpperCase());
    await page.keyboard.press("Enter");
    const drawer = page.getByRole("dialog", { name: domain });
    await drawer.waitFor();
    await expect.poll(() => recordRow(page, "DKIM").textContent()).toContain("Not checked");
    expect(await a11yViolations(page)).toEqual([]);

    // The records the page shows are the domain's own, as the API gives them.
    const { api } = fx;
    const [created] = (await api.get("/domains")).body.data;
    expect(created.domain).toBe(domain);
    const dkim = created.records.find((r: { purpose: string }) => r.purpose === "dkim");
    const spf = created.records.find((r: { purpose: string }) => r.purpose === "spf");
    await expect.poll(() => recordRow(page, "DKIM").textContent()).toContain(dkim.value);

    // SPF published, DKIM not yet: still pending, the DKIM record marked missing.
    addZones(platform.zonesFile, { [domain]: { TXT: [spf.value] } });
    await drawer.getByRole("button", { name: "Verify" }).click();
    await expect.poll(() => recordRow(page, "DKIM").textContent()).toContain("Missing");
    expect(await recordRow(page, "SPF").textContent()).toContain("Found");
    expect(await drawer.getByText("Pending").count()).toBe(1);
    expect(await a11yViolations(page)).toEqual([]);

    addZones(platform.zonesFile, { [dkim.name]: { TXT: [dkim.value] } });
    await drawer.getByRole("button", { name: "Verify" }).click();
    await drawer.getByText("Verified", { exact: true }).waitFor();
    expect(await recordRow(page, "DKIM").textContent()).toContain("Found");
    expect(await recordRow(page, "DMARC").textContent()).toContain("Missing");

    // Copy the DKIM value with the keyboard alone.
    await drawer.getByRole("button", { name: "Copy DKIM record value" }).focus();
    await page.keyboard.press("Enter");
    await drawer.getByRole("button", { name: "Copy DKIM record value" }).filter({ hasText: "Copied" }).waitFor();
    expect(await page.evaluate(() => navigator.clipboard.readText())).toBe(dkim.value);

    await page.keyboard.press("Escape");
    await expect.poll(() => page.getByRole("dialog").count()).toBe(0);
    const row = page.getByRole("table", { name: "Domains" }).getByRole("row").filter({ hasText: domain });
    await expect.poll(() => row.textContent()).toContain("Verified");
    expect(await a11yViolations(page)).toEqual([]);

    await row.getByRole("button", { name: domain }).click();
    await drawer.getByRole("button", { name: "Delete domain" }).click();
    const confirm = page.getByRole("dialog", { name: `Delete ${domain}?` });
    // the safe choice has the focus once the modal has opened (and its transition is over)
    await expect.poll(() => confirm.getByRole("button", { name: "Cancel" }).evaluate((b) => b === document.activeElement)).toBe(true);
    // one axe run at a time (a poll's next attempt could start while a slow run is still going)
    let violations: unknown[] = [];
    await waitFor(async () => (violations = await a11yViolations(page)).length === 0, { timeoutMs: 20_000, what: "no axe violation on the open modal" }).catch(() => undefined);
    expect(violations).toEqual([]);
    await confirm.getByRole("button", { name: "Delete" }).click();
    await page.getByText("No domains yet.").waitFor();
    expect((await api.get("/domains")).body.data).toEqual([]);
    await page.context().close();
  });

  it("refuses a malformed name and a domain already added, at the field", async () => {
    const page = await openDomains(fx.owner);
    const { api } = fx;
    const before = (await api.get("/domains")).body.data.length;
    const field = page.getByRole("textbox", { name: /^Domain/ });
    for (const bad of ["not a domain", "<script>alert(1)</script>.com", "a..b", "x".repeat(300)]) {
      await field.fill(bad);
      await page.getByRole("button", { name: "Add domain" }).click();
      await expect.poll(() => field.getAttribute("aria-invalid")).toBe("true");
    }
    expect(await a11yViolations(page)).toEqual([]);
    expect((await api.get("/domains")).body.data).toHaveLength(before);

    const domain = uniqueDomain();
    await field.fill(domain);
    await page.getByRole("button", { name: "Add domain" }).click();
    await page.getByRole("dialog", { name: domain }).waitFor();
    await page.keyboard.press("Escape");
    await expect.poll(() => page.getByRole("dialog").count()).toBe(0);
    await field.fill(domain);
    await page.getByRole("button", { name: "Add domain" }).click();
    await page.getByText(/already has the domain/).waitFor();
    expect(await field.getAttribute("aria-invalid")).toBe("true");
    await page.context().close();
  });

  it("shows an editor the domains and their records, read-only", async () => {
    const page = await openDomains(fx.editor);
    await page.getByText("Only a project owner can add, verify or delete domains.").waitFor();
    expect(await page.getByRole("button", { name: "Add domain" }).count()).toBe(0);
    const first = page.getByRole("table", { name: "Domains" }).getByRole("row").nth(1).getByRole("button");
    await first.click();
    await page.getByRole("table", { name: "DNS records" }).waitFor();
    expect(await page.getByRole("button", { name: "Verify" }).count()).toBe(0);
    expect(await page.getByRole("button", { name: "Delete domain" }).count()).toBe(0);
    expect(await a11yViolations(page)).toEqual([]);
    await page.context().close();
  });
});
