import { escapeHtml, tenantName } from "@mailroom/kit";

/** How long a confirmation link works (decisions.md §15). */
export const CONFIRMATION_LINK_DAYS = 7;

/**
 * Mailroom's own confirmation email, the only one that goes from SYSTEM_FROM (decisions.md §15): a
 * tenant whose sender is not on a verified domain of its project chooses none of its words. It names
 * the project (one line, at most 60 characters, escaped) and the address, so the reader can tell
 * who asked; the rest is fixed.
 */
export function confirmationText(projectName: string | null, address: string, confirmUrl: string): { subject: string; html: string } {
  const name = tenantName(projectName ?? "") || "a project";
  const html = [
    "<p>Hello,</p>",
    `<p>Someone asked to receive emails from <strong>${escapeHtml(name)}</strong> at ${escapeHtml(address)}. ` +
      "If it was you, please confirm:</p>",
    `<p><a href="${escapeHtml(confirmUrl)}">Yes, subscribe me</a></p>`,
    `<p>If it was not you, ignore this email: you will not be subscribed. The link works once, for ${CONFIRMATION_LINK_DAYS} days.</p>`,
    "<p>Sent by Mailroom on behalf of the project named above.</p>",
  ].join("\n");
  return { subject: `Confirm your subscription to ${name}`, html };
}
