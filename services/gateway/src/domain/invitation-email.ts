const escapeHtml = (s: string) => s.replace(/[&<>"']/g, (c) => `&#${c.charCodeAt(0)};`);

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

/** The invitation's subject and body; every name in it comes from users, so all of it is escaped. */
export function invitationEmail(opts: { projectName: string; inviter: string; role: string; link: string; ttlMs: number }): {
  subject: string;
  html: string;
} {
  const project = escapeHtml(opts.projectName);
  const subject = `${opts.inviter} invited you to ${opts.projectName} on Mailroom`.replace(/[\r\n]+/g, " ").slice(0, 998);
  const html = [
    `<p>${escapeHtml(opts.inviter)} invited you to the project <strong>${project}</strong> on Mailroom as ${escapeHtml(opts.role)}.</p>`,
    `<p><a href="${escapeHtml(opts.link)}">Accept the invitation</a></p>`,
    `<p>Or open this link: ${escapeHtml(opts.link)}</p>`,
    `<p>The link works once and for ${lifetimeInWords(opts.ttlMs)}. If you did not expect it, ignore this email.</p>`,
  ].join("\n");
  return { subject, html };
}
