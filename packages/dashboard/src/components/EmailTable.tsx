import type { Email, EmailEventType } from "@mailroom/contracts";
import { Badge } from "@mantine/core";
import type { useEmails } from "../api/emails";
import type { CursorTrail } from "../lib/cursors";
import { formatTime } from "../lib/format";
import { type Column, linkColumn, QueryTable } from "./DataTable";

// Shades dark enough for white text at badge size (WCAG AA 4.5:1), checked by axe in the browser tests.
const COLORS: Record<EmailEventType, string> = {
  QUEUED: "gray.7",
  SENT: "blue.8",
  DELIVERED: "teal.9",
  OPENED: "cyan.9",
  CLICKED: "indigo.8",
  BOUNCED: "red.9",
  COMPLAINED: "red.9",
  FAILED: "red.9",
  UNSUBSCRIBED: "grape.8",
};

/** A status or event type as a badge. */
export function StatusBadge({ status }: { status: EmailEventType }) {
  return (
    <Badge color={COLORS[status]} variant="filled">
      {status}
    </Badge>
  );
}

/** An email as a row; the subject opens the email's page. */
export const EMAIL_COLUMNS: Column<Email>[] = [
  linkColumn("Subject", (e) => `/emails/${encodeURIComponent(e.id)}`, (e) => e.subject || "(no subject)"),
  { header: "To", cell: (e) => e.to },
  { header: "Status", cell: (e) => <StatusBadge status={e.status} /> },
  { header: "Created", cell: (e) => formatTime(e.createdAt) },
];

/** A list of emails (the email log, a campaign's recipients, a contact's latest), by cursor pages when `trail` is given. */
export function EmailTable({ label, caption, query, trail, empty, what }: {
  label: string;
  caption: string;
  query: ReturnType<typeof useEmails>;
  trail?: CursorTrail;
  empty: string;
  what?: string;
}) {
  return (
    <QueryTable
      label={label}
      caption={caption}
      what={what}
      query={query}
      trail={trail}
      empty={empty}
      minWidth={640}
      columns={EMAIL_COLUMNS}
    />
  );
}
