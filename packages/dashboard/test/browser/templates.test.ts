import { randomBytes } from "node:crypto";
import { describe, expect, it } from "vitest";
import { sinkMessages } from "@mailroom/testkit";
import { a11yViolations, signedInContext } from "@mailroom/testkit/browser";
import { browserAndOwner } from "./fixture.js";
import { verifiedDomain } from "./sent-emails.js";

const fx = browserAndOwner();
const { platform } = fx;
let domain: string;

describe("the Templates page", () => {
  it("creates a template in the editor, previews it with sample data, sends a test that arrives rendered", async () => {
    const page = await fx.open("/app/templates");
    await page.getByText("No transactional templates yet.").waitFor();
    expect(await a11yViolations(page)).toEqual([]);

    await page.getByRole("link", { name: "New template" }).click();
    await page.getByText("Save the template to send a test.").waitFor();
    await page.getByRole("textbox", { name: /^Name/ }).fill("Welcome");
    await page.getByRole("textbox", { name: /^Subject/ }).fill("Hello {{ firstName }}");
    const body = page.getByRole("textbox", { name: "Body" });
    await body.focus();
    // The HTML mode closes the <b> tag itself.
    await page.keyboard.type("Hi {{ firstName }}, this is {{ contact.email }} <b>{{ note }}");
    const preview = () => page.frameLocator('iframe[title="Email preview"]').locator("body").innerHTML();
    await expect.poll(preview).toContain("Hi Ada, this is ada@example.com");
    expect(await page.getByTestId("preview-subject").textContent()).toBe("Hello Ada");
    expect(await a11yViolations(page)).toEqual([]);

    // The sample data drives the preview; HTML in a value is escaped, as the server renders it.
    const to = `tpl-${randomBytes(4).toString("hex")}@example.com`;
    await page.getByRole("textbox", { name: /^Sample data/ }).fill(JSON.stringify({ data: { firstName: "Grace", note: "<i>x</i>" }, contact: { email: to } }));
    await expect.poll(preview).toContain("Hi Grace, this is");
    expect(await preview()).toContain("<b>&lt;i&gt;x&lt;/i&gt;</b>");
    expect(await page.getByTestId("preview-subject").textContent()).toBe("Hello Grace");

    // Invalid JSON is shown at the field; the preview keeps the last good sample.
    await page.getByRole("textbox", { name: /^Sample data/ }).fill("{ not json");
    await page.getByText("Not valid JSON").waitFor();
    expect(await page.getByTestId("preview-subject").textContent()).toBe("Hello Grace");
    await page.getByRole("textbox", { name: /^Sample data/ }).fill(JSON.stringify({ data: { firstName: "Grace", note: "<i>x</i>" }, contact: { email: to } }));

    await page.getByRole("button", { name: "Save" }).click();
    await expect.poll(() => new URL(page.url()).pathname).toMatch(/^\/app\/templates\/(?!new$)[^/]+$/);
    const id = new URL(page.url()).pathname.split("/").pop()!;
    const saved = await fx.api.get(`/templates/${id}`);
    expect(saved.body).toMatchObject({ name: "Welcome", subject: "Hello {{ firstName }}", type: "TRANSACTIONAL" });
    expect(saved.body.body).toBe("Hi {{ firstName }}, this is {{ contact.email }} <b>{{ note }}</b>");

    // No verified domain yet: the page says so and points to Domains.
    await page.getByText("No verified domain").waitFor();
    expect(await page.getByRole("link", { name: "Open Domains" }).getAttribute("href")).toBe("/app/domains");
    expect(await a11yViolations(page)).toEqual([]);

    domain = await verifiedDomain(platform, fx.api);
    await page.reload();
    await page.getByRole("textbox", { name: /^Sample data/ }).fill(JSON.stringify({ data: { firstName: "Grace", note: "<i>x</i>" }, contact: { email: to } }));
    await page.getByRole("textbox", { name: /^Send to/ }).fill(to);
    // by keyboard: the lazily loaded editor and preview can move the button between a click's aim and its press
    await page.getByRole("button", { name: "Send test" }).press("Enter");
    await page.getByText(`Test sent to ${to}`).waitFor();
    await expect.poll(async () => (await sinkMessages(platform.mailboxUrl, [to])).length, { timeout: 20_000 }).toBe(1);
    const [message] = await sinkMessages(platform.mailboxUrl, [to]);
    expect(message!.subject).toBe("Hello Grace");
    expect(JSON.stringify(message)).toContain(`test@${domain}`);
    expect(message!.html).toContain("Hi Grace, this is");
    expect(message!.html).toContain("&lt;i&gt;x&lt;/i&gt;");
    expect(await a11yViolations(page)).toEqual([]);
    await page.context().close();
  });

  it("shows the email's own styles in the preview and runs none of its scripts", async () => {
    const context = await signedInContext(fx.browser, platform.url, fx.owner);
    const page = await context.newPage();
    const dialogs: string[] = [];
    page.on("dialog", (d) => {
      dialogs.push(d.message());
      void d.dismiss();
    });
    await page.goto(`${platform.url}/app/templates/new`);
    await page.getByRole("textbox", { name: "Body" }).focus();
    await page.keyboard.insertText(
      "<style>.big{font-size:30px}</style>" +
        '<p class="big" style="color: rgb(200, 0, 0)" id="styled">Styled {{ firstName }}</p>' +
        "<img src=\"x\" onerror=\"document.body.dataset.ran='handler';alert(1)\">" +
        "<script>document.body.dataset.ran='script';alert(2)</script>" +
        '<a href="https://example.com/away" id="away">away</a>',
    );
    const frame = page.frameLocator('iframe[title="Email preview"]');
    await frame.getByText("Styled Ada").waitFor();
    const styled = frame.locator("#styled");
    expect(await styled.evaluate((el) => [getComputedStyle(el).color, getComputedStyle(el).fontSize])).toEqual(["rgb(200, 0, 0)", "30px"]);
    // the image has failed (its src is refused), so its handler would have run by now
    await expect.poll(() => frame.locator("img").evaluate((img) => (img as HTMLImageElement).complete)).toBe(true);
    expect(await frame.locator("body").evaluate((b) => b.dataset.ran ?? null)).toBeNull();
    // a link in the email does not take the frame away from the preview
    await frame.locator("#away").click();
    await page.getByRole("textbox", { name: "Body" }).press("End");
    await page.keyboard.insertText("<p>more</p>");
    await frame.getByText("more").waitFor();
    expect(dialogs).toEqual([]);
    await context.close();
  });

  it("refuses an empty name and bad Liquid at the fields, lists by type, deletes with confirmation", async () => {
    const page = await fx.open("/app/templates/new");
    await page.getByRole("textbox", { name: /^Subject/ }).fill("Hi");
    await page.getByRole("textbox", { name: "Body" }).focus();
    await page.keyboard.type("{% if %}");
    await page.getByRole("button", { name: "Save" }).click();
    await expect.poll(() => page.getByRole("textbox", { name: /^Name/ }).getAttribute("aria-invalid")).toBe("true");
    await page.getByRole("textbox", { name: /^Name/ }).fill("Broken");
    await page.getByRole("button", { name: "Save" }).click();
    await page.getByText(/template syntax error/).waitFor();
    expect(await a11yViolations(page)).toEqual([]);

    await page.goto(`${platform.url}/app/templates?type=MARKETING`);
    await page.getByText("No marketing templates yet.").waitFor();
    await page.getByRole("tab", { name: "Transactional" }).click();
    const row = page.getByRole("table", { name: "Templates" }).getByRole("row").filter({ hasText: "Welcome" });
    await row.waitFor();
    await row.getByRole("button", { name: "Delete Welcome" }).click();
    await page.getByRole("dialog", { name: "Delete Welcome?" }).getByRole("button", { name: "Delete" }).click();
    await page.getByText("No transactional templates yet.").waitFor();
    await page.context().close();
  });
});
