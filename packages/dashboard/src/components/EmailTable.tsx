import type { Email, EmailEventType } from "@mailroom/contracts";
import { Anchor, Badge } from "@mantine/core";
import { Link } from "react-router";
import type { useEmails } from "../api/emails";
import type { CursorTrail } from "../lib/cursors";
import { formatTime } from "../lib/format";
import { type Column, QueryTable } from "./DataTable";

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
  {
    header: "Subject",
    cell: (e) => (
      <Anchor component={Link} to={`/emails/${encodeURIComponent(e.id)}`}>
        {e.subject || "(no subject)"}
      </Anchor>
    ),
  },
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
      what={what ?? "emails"}
      query={query}
      rows={(d) => d.data}
      rowKey={(e) => e.id}
      trail={trail}
      empty={empty}
      minWidth={640}
      columns={EMAIL_COLUMNS}
    />
  );
}
