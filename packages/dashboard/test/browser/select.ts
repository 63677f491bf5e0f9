import type { Locator, Page } from "playwright-core";

/** Tries to open a dropdown before the test gives up on it. */
const OPEN_ATTEMPTS = 5;

/**
 * A Mantine Select (or Autocomplete), `box` being its input, set to `option` from its dropdown. A
 * click toggles a Select's dropdown, and on a loaded machine one landing while the last pick's
 * dropdown was still closing left it shut (a test then waited 30 s for an option that never showed),
 * so the dropdown is opened again until the option is there.
 */
export async function selectOption(page: Page, box: Locator, option: string | RegExp, opts: { search?: string; exact?: boolean } = {}): Promise<void> {
  const choice = page.getByRole("option", { name: option, exact: opts.exact }).first();
  for (let attempt = 1; ; attempt++) {
    await box.click();
    if (opts.search) await box.fill(opts.search);
    try {
      await choice.waitFor({ state: "visible", timeout: 3_000 });
      break;
    } catch (err) {
      if (attempt === OPEN_ATTEMPTS) throw err;
    }
  }
  await choice.click();
}

/** The Select labelled `label` on the page set to `option` (`selectOption`). */
export const pick = (page: Page, label: string | RegExp, option: string | RegExp, opts: { search?: string; exact?: boolean } = {}): Promise<void> =>
  selectOption(page, selectBox(page, label), option, opts);

/** The Select labelled `label` (a textbox or a combobox, as Mantine renders it) within `scope`. */
export const selectBox = (scope: Page | Locator, label: string | RegExp, exact?: boolean): Locator =>
  scope.getByRole("textbox", { name: label, exact }).or(scope.getByRole("combobox", { name: label, exact }));
