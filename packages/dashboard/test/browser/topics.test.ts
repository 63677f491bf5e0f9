import { describe, expect, it } from "vitest";
import { a11yViolations, } from "@mailroom/testkit/browser";
import { browserAndOwner } from "./fixture";

const f = browserAndOwner();

describe("the Topics page", () => {
  it("creates, edits and deletes a topic, the API agreeing at each step", async () => {
    const { api } = f;
    const page = await f.open("/app/topics");
    await page.getByText("No topics yet.").waitFor();
    expect(await a11yViolations(page)).toEqual([]);

    await page.getByRole("button", { name: "New topic" }).click();
    const dialog = page.getByRole("dialog", { name: "New topic" });
    await dialog.getByRole("textbox", { name: /^Name/ }).fill("Product news");
    await dialog.getByRole("textbox", { name: /^Description/ }).fill("What we ship");
    await dialog.getByRole("switch", { name: /Subscribed by default/ }).check();
    await dialog.getByRole("button", { name: "Create topic" }).click();
    await page.getByRole("cell", { name: "Product news", exact: true }).waitFor();
    expect(await a11yViolations(page)).toEqual([]);
    const [created] = (await api.get("/topics")).body;
    expect(created).toMatchObject({ name: "Product news", description: "What we ship", defaultSubscribed: true });

    await page.getByRole("button", { name: "Edit Product news" }).click();
    const edit = page.getByRole("dialog", { name: "Edit topic" });
    await edit.getByRole("textbox", { name: /^Name/ }).fill("Releases");
    await edit.getByRole("switch", { name: /Subscribed by default/ }).uncheck();
    await edit.getByRole("button", { name: "Save" }).click();
    await page.getByRole("cell", { name: "Releases", exact: true }).waitFor();
    expect((await api.get(`/topics/${created.id}`)).body).toMatchObject({ name: "Releases", defaultSubscribed: false });

    await page.getByRole("button", { name: "Delete Releases" }).click();
    await page.getByRole("dialog", { name: "Delete topic" }).getByRole("button", { name: "Delete" }).click();
    await page.getByText("No topics yet.").waitFor();
    expect((await api.get("/topics")).body).toEqual([]);
    await page.context().close();
  });
});
