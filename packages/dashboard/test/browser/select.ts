import type { Locator, Page } from "playwright-core";

/** Tries at clicking the option (each opening the dropdown if it is shut) before the test gives up. */
const PICK_ATTEMPTS = 5;

/**
 * A Mantine Select (or Autocomplete), `box` being its input, set to `option` from its dropdown. A
 * click toggles a Select's dropdown, and on a loaded machine a dropdown can shut between the option
 * showing and the click on it (one landing while the last pick's dropdown was closing left it shut;
 * in CI an option seen visible was then waited on for 30 s). So each attempt opens the dropdown only
 * if the option is not showing, and clicks it with a short timeout; a miss opens it again.
 */
export async function selectOption(page: Page, box: Locator, option: string | RegExp, opts: { search?: string; exact?: boolean } = {}): Promise<void> {
  const choice = page.getByRole("option", { name: option, exact: opts.exact }).first();
  for (let attempt = 1; ; attempt++) {
    if (!(await choice.isVisible())) {
      await box.click();
      if (opts.search) await box.fill(opts.search);
    }
    try {
      await choice.click({ timeout: 3_000 });
      return;
    } catch (err) {
      if (attempt === PICK_ATTEMPTS) throw err;
    }
  }
}

/** The Select labelled `label` on the page set to `option` (`selectOption`). */
export const pick = (page: Page, label: string | RegExp, option: string | RegExp, opts: { search?: string; exact?: boolean } = {}): Promise<void> =>
  selectOption(page, selectBox(page, label), option, opts);

/** The Select labelled `label` (a textbox or a combobox, as Mantine renders it) within `scope`. */
export const selectBox = (scope: Page | Locator, label: string | RegExp, exact?: boolean): Locator =>
  scope.getByRole("textbox", { name: label, exact }).or(scope.getByRole("combobox", { name: label, exact }));
