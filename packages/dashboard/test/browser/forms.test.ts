import { randomUUID } from "node:crypto";
import { describe, expect, it } from "vitest";
import { addZones } from "@mailroom/testkit";
import { a11yViolations } from "@mailroom/testkit/browser";
import { browserAndOwner } from "./fixture";
import { selectOption, selectBox } from "./select";

const f = browserAndOwner();

describe("the Forms page", () => {
  it("builds a form, gives its snippet, counts a submission made on its page, edits and deletes it", async () => {
    const { api, platform } = f;
    const topic = (await api.post("/topics", { name: "Release notes" })).body.id as string;
    const domain = `dash-forms-${randomUUID().slice(0, 8)}.example`;
    addZones(platform.zonesFile, { [domain]: { MX: [{ exchange: `mx.${domain}`, priority: 10 }], A: ["192.0.2.13"] } });

    const page = await f.open("/app/forms");
    await page.getByText("No forms yet.").waitFor();
    expect(await a11yViolations(page)).toEqual([]);

    await page.getByRole("button", { name: "New form" }).click();
    const dialog = page.getByRole("dialog", { name: "New form" });
    await dialog.getByRole("textbox", { name: /^Name/ }).fill("Newsletter");
    await dialog.getByRole("button", { name: "Add field" }).click();
    const second = dialog.getByRole("group", { name: "Field 2" });
    await second.getByRole("textbox", { name: /^Label/ }).fill("First name");
    await second.getByRole("textbox", { name: /^Key/ }).fill("firstName");
    await selectOption(page, selectBox(dialog, "Topics"), "Release notes");
    await dialog.getByRole("textbox", { name: /^Success message/ }).fill("Welcome aboard!");
    expect(await a11yViolations(page)).toEqual([]);
    await dialog.getByRole("button", { name: "Create form" }).click();
    await page.getByRole("cell", { name: "Newsletter", exact: true }).waitFor();
    const [created] = (await api.get("/forms")).body;
    expect(created).toMatchObject({
      name: "Newsletter",
      fields: [
        { key: "email", label: "Email", type: "email", required: true },
        { key: "firstName", label: "First name", type: "text", required: false },
      ],
      topicIds: [topic],
      redirectUrl: null,
      successMessage: "Welcome aboard!",
      submissions: 0,
    });

    // the snippet frames the hosted page
    await page.getByRole("button", { name: "Embed Newsletter" }).click();
    const embed = page.getByRole("dialog", { name: "Embed the form" });
    await expect.poll(() => embed.getByRole("textbox", { name: "HTML snippet" }).inputValue()).toContain(`<iframe src="${platform.url}/f/${created.id}"`);
    expect(await a11yViolations(page)).toEqual([]);
    await embed.getByRole("button", { name: "Close" }).click();

    // a person fills the hosted page in (no script on it) and sends it
    const hosted = await page.context().newPage();
    await hosted.goto(`${platform.url}/f/${created.id}`);
    const renderedAt = Number(await hosted.locator('input[name="mr_t"]').inputValue());
    expect(await a11yViolations(hosted)).toEqual([]);
    const address = `ada-${randomUUID().slice(0, 6)}@${domain}`;
    await hosted.getByRole("textbox", { name: "Email" }).fill(address);
    await hosted.getByRole("textbox", { name: "First name" }).fill("Ada");
    // people take more than the 2 s under which a post counts as a bot's: this one takes as long
    await hosted.waitForTimeout(Math.max(0, renderedAt + 2200 - Date.now()));
    await hosted.getByRole("button", { name: "Subscribe" }).click();
    await hosted.getByText("Welcome aboard!").waitFor();
    await hosted.close();

    await page.reload();
    await expect.poll(() => page.getByRole("row", { name: /Newsletter/ }).getByRole("cell").nth(2).textContent()).toBe("1");
    const contact = (await api.get(`/contacts?search=${encodeURIComponent(address)}`)).body.data[0];
    expect(contact).toMatchObject({ email: address, subscribed: true, data: { firstName: "Ada" }, topics: { [topic]: true } });

    await page.getByRole("button", { name: "Edit Newsletter" }).click();
    const edit = page.getByRole("dialog", { name: "Edit form" });
    await edit.getByRole("radio", { name: "Go to a page" }).check();
    await edit.getByRole("textbox", { name: /^Redirect URL/ }).fill("not a url");
    await edit.getByRole("button", { name: "Save" }).click();
    await edit.getByText("must be an absolute http or https URL").waitFor();
    await edit.getByRole("textbox", { name: /^Redirect URL/ }).fill("https://example.org/thanks");
    await edit.getByRole("button", { name: "Save" }).click();
    await edit.waitFor({ state: "hidden" });
    expect((await api.get(`/forms/${created.id}`)).body).toMatchObject({ redirectUrl: "https://example.org/thanks", submissions: 1 });

    await page.getByRole("button", { name: "Delete Newsletter" }).click();
    await page.getByRole("dialog", { name: "Delete form" }).getByRole("button", { name: "Delete" }).click();
    await page.getByText("No forms yet.").waitFor();
    expect((await api.get("/forms")).body).toEqual([]);
    await page.context().close();
  });
});
