import { escapeHtml, tenantName } from "@mailroom/kit";

const UNITS = [
  ["day", 86_400_000],
  ["hour", 3_600_000],
  ["minute", 60_000],
] as const;

/** How long an invitation lasts, in words: the largest unit that states it exactly ("7 days", "36 hours"), else whole seconds. */
export function lifetimeInWords(ms: number): string {
  const [unit, size] = UNITS.find(([, size]) => ms >= size && ms % size === 0) ?? ["second", 1000];
  const n = Math.max(1, Math.floor(ms / size));
  return `${n} ${unit}${n === 1 ? "" : "s"}`;
}

/**
 * The invitation's subject and body. Every name in it comes from users and goes out from SYSTEM_FROM,
 * so each is one line of at most 60 characters (decisions.md §15) and escaped in the body.
 */
export function invitationEmail(opts: { projectName: string; inviter: string; role: string; link: string; ttlMs: number }): {
  subject: string;
  html: string;
} {
  const [projectName, inviter] = [tenantName(opts.projectName), tenantName(opts.inviter)];
  const subject = `${inviter} invited you to ${projectName} on Mailroom`;
  const html = [
    `<p>${escapeHtml(inviter)} invited you to the project <strong>${escapeHtml(projectName)}</strong> on Mailroom as ${escapeHtml(opts.role)}.</p>`,
    `<p><a href="${escapeHtml(opts.link)}">Accept the invitation</a></p>`,
    `<p>Or open this link: ${escapeHtml(opts.link)}</p>`,
    `<p>The link works once and for ${lifetimeInWords(opts.ttlMs)}. If you did not expect it, ignore this email.</p>`,
  ].join("\n");
  return { subject, html };
}
