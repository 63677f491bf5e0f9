const escapeHtml = (s: string) => s.replace(/[&<>"']/g, (c) => `&#${c.charCodeAt(0)};`);

/** The invitation's subject and body; every name in it comes from users, so all of it is escaped. */
export function invitationEmail(opts: { projectName: string; inviter: string; role: string; link: string }): { subject: string; html: string } {
  const project = escapeHtml(opts.projectName);
  const subject = `${opts.inviter} invited you to ${opts.projectName} on Mailroom`.replace(/[\r\n]+/g, " ").slice(0, 998);
  const html = [
    `<p>${escapeHtml(opts.inviter)} invited you to the project <strong>${project}</strong> on Mailroom as ${escapeHtml(opts.role)}.</p>`,
    `<p><a href="${escapeHtml(opts.link)}">Accept the invitation</a></p>`,
    `<p>Or open this link: ${escapeHtml(opts.link)}</p>`,
    "<p>The link works once and for 7 days. If you did not expect it, ignore this email.</p>",
  ].join("\n");
  return { subject, html };
}
