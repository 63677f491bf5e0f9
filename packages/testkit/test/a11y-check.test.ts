import { describe, expect, it } from "vitest";
import { a11yViolations, workerBrowser } from "@mailroom/testkit/browser";

// The dashboard's accessibility tests pass on an empty list of violations: that list must be able
// to hold one. A page with the failures the sweep exists for, and the same page made right.
describe("the accessibility check", () => {
  it("finds serious violations (an unlabelled field, text without contrast, an image without alt) and none once they are fixed", async () => {
    const context = await (await workerBrowser()).newContext();
    const page = await context.newPage();
    await page.setContent(`<html lang="en"><head><title>bad</title></head><body><main><h1>Form</h1>
      <input type="text"><p style="color:#bbb;background:#fff">faint</p><img src="data:image/gif;base64,R0lGODlhAQABAAAAACw=">
      <iframe title="Email preview" srcdoc="<img src=x>"></iframe></main></body></html>`);
    const found = await a11yViolations(page);
    expect(found.map((v) => v.id).sort()).toEqual(["color-contrast", "image-alt", "label"]);
    expect(found.find((v) => v.id === "label")?.targets[0]).toContain("<input");

    // a second check on the same page judges the page as it is now
    await page.setContent(`<html lang="en"><head><title>good</title></head><body><main><h1>Form</h1>
      <label>Name <input type="text"></label><p style="color:#333;background:#fff">clear</p><img alt="" src="data:image/gif;base64,R0lGODlhAQABAAAAACw="></main></body></html>`);
    expect(await a11yViolations(page)).toEqual([]);
    await context.close();
  });
});
