/**
 * Text a tenant chose (a project's or a member's name) placed in Mailroom's own mail, which goes from
 * SYSTEM_FROM under the installation's reputation (decisions.md §15). It names who asked, nothing
 * more: one line, at most `max` characters, so it cannot carry a message of its own.
 */

/** Every character HTML gives a meaning to, as a numeric reference. */
export const escapeHtml = (s: string) => s.replace(/[&<>"']/g, (c) => `&#${c.charCodeAt(0)};`);

/** Control and format characters (line breaks, bidi overrides, zero-width joiners) and runs of space. */
const NOT_ONE_LINE = /[\p{Cc}\p{Cf}\p{Zl}\p{Zp}]+/gu;

/**
 * `value` as one plain line of at most `max` characters (code points): control and format
 * characters become spaces, spaces collapse, and a cut ends with "…". Not escaped: a subject takes it
 * as it is, a body through `escapeHtml`.
 */
export function tenantName(value: string, max = 60): string {
  const line = value.replace(NOT_ONE_LINE, " ").replace(/\s+/g, " ").trim();
  const chars = [...line];
  return chars.length <= max ? line : `${chars.slice(0, max - 1).join("").trimEnd()}…`;
}
