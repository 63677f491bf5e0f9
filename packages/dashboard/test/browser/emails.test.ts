import { beforeAll, describe, expect, it } from "vitest";
import { a11yViolations, } from "@mailroom/testkit/browser";
import { sendEmail, uniqueAddress } from "./sent-emails.js";
import { browserAndOwner } from "./fixture.js";
import { selectOption } from "./select.js";

const fx = browserAndOwner({ sending: true });
const { platform } = fx;
const ada = uniqueAddress("ada");
const grace = uniqueAddress("grace");
let adaEmail: string;
/** Where the sink left the emails (SENT, or DELIVERED once a report came back): the option to filter by. */
let reached: string;

beforeAll(async () => {
  ({ emailId: adaEmail } = await sendEmail(fx.api, { from: fx.from, to: ada, subject: "For Ada" }));
  const { emailId } = await sendEmail(fx.api, { from: fx.from, to: grace, subject: "For Grace" });
  const status: string = (await fx.api.get(`/emails/${emailId}`)).body.status;
  reached = status.charAt(0) + status.slice(1).toLowerCase();
});
describe("the Emails pages", () => {
  it("filters the log by status and recipient, keeping the filters in the URL", async () => {
    const page = await fx.open("/app/emails");
    const context = page.context();
    await page.getByRole("link", { name: "For Grace" }).waitFor();
    await page.getByRole("link", { name: "For Ada" }).waitFor();
    expect(await a11yViolations(page)).toEqual([]);

    await selectOption(page, page.getByRole("combobox", { name: "Status" }), "Failed");
    await page.getByText("No email matches these filters.").waitFor();
    expect(new URL(page.url()).searchParams.get("status")).toBe("FAILED");
    expect(await a11yViolations(page)).toEqual([]);

    await selectOption(page, page.getByRole("combobox", { name: "Status" }), reached, { exact: true });
    await page.getByRole("link", { name: "For Grace" }).waitFor();
    await page.getByRole("searchbox", { name: "Recipient" }).fill(ada.split("@")[0]!.toUpperCase());
    await expect.poll(() => page.getByRole("link", { name: "For Grace" }).count()).toBe(0);
    await page.getByRole("link", { name: "For Ada" }).waitFor();
    await expect.poll(() => new URL(page.url()).searchParams.get("to")).toBe(ada.split("@")[0]!.toUpperCase());

    // a campaign these emails are not part of: none left, the other filters kept
    await page.getByRole("searchbox", { name: "Campaign ID" }).fill("cmp_not_theirs");
    await page.getByText("No email matches these filters.").waitFor();
    await expect.poll(() => new URL(page.url()).searchParams.get("campaignId")).toBe("cmp_not_theirs");
    await page.getByRole("searchbox", { name: "Campaign ID" }).fill("");
    await page.getByRole("link", { name: "For Ada" }).waitFor();

    // the URL alone reproduces the view, in another tab
    const shared = await context.newPage();
    await shared.goto(page.url());
    await shared.getByRole("link", { name: "For Ada" }).waitFor();
    expect(await shared.getByRole("link", { name: "For Grace" }).count()).toBe(0);
    expect(await shared.getByRole("searchbox", { name: "Recipient" }).inputValue()).toBe(ada.split("@")[0]!.toUpperCase());

    // an edited link with values the API refuses shows the unfiltered log, not an error
    await shared.goto(`${platform.url}/app/emails?status=bogus&campaignId=${"x".repeat(300)}`);
    await shared.getByRole("link", { name: "For Grace" }).waitFor();
    expect(await shared.getByRole("alert").count()).toBe(0);
    await context.close();
  });

  it("shows an email's fields and its timeline in order, and opens it by keyboard", async () => {
    const page = await fx.open(`/app/emails?to=${encodeURIComponent(ada)}`);
    await page.getByRole("link", { name: "For Ada" }).focus();
    await page.keyboard.press("Enter");
    await page.getByRole("heading", { name: "For Ada" }).waitFor();
    expect(new URL(page.url()).pathname).toBe(`/app/emails/${adaEmail}`);
    await page.getByRole("link", { name: ada }).waitFor();

    const steps = page.getByText(/^(QUEUED|SENT|DELIVERED|FAILED) · /);
    await expect.poll(async () => (await steps.allTextContents()).map((t) => t.split(" ")[0])).toEqual(expect.arrayContaining(["QUEUED", "SENT"]));
    const order = (await steps.allTextContents()).map((t) => t.split(" ")[0]);
    expect(order.indexOf("QUEUED")).toBe(0);
    expect(order.indexOf("SENT")).toBeGreaterThan(0);
    expect(await a11yViolations(page)).toEqual([]);

    // an id that is not this project's is "not found"
    await page.goto(`${platform.url}/app/emails/${encodeURIComponent("no-such-email")}`);
    await page.getByRole("alert").filter({ hasText: "Not found" }).waitFor();
    await page.context().close();
  });
});
