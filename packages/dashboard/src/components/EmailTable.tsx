import type { Email, EmailEventType } from "@mailroom/contracts";
import { Anchor, Badge, Table } from "@mantine/core";
import { Link } from "react-router";
import { formatTime } from "../lib/format";

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

/** Emails as rows; the subject opens the email's page. */
export function EmailTable({ emails, caption }: { emails: readonly Email[]; caption: string }) {
  return (
    <Table.ScrollContainer minWidth={640}>
      <Table striped highlightOnHover>
        <Table.Caption>{caption}</Table.Caption>
        <Table.Thead>
          <Table.Tr>
            <Table.Th>Subject</Table.Th>
            <Table.Th>To</Table.Th>
            <Table.Th>Status</Table.Th>
            <Table.Th>Created</Table.Th>
          </Table.Tr>
        </Table.Thead>
        <Table.Tbody>
          {emails.map((e) => (
            <Table.Tr key={e.id}>
              <Table.Td>
                <Anchor component={Link} to={`/emails/${encodeURIComponent(e.id)}`}>
                  {e.subject || "(no subject)"}
                </Anchor>
              </Table.Td>
              <Table.Td>{e.to}</Table.Td>
              <Table.Td>
                <StatusBadge status={e.status} />
              </Table.Td>
              <Table.Td>{formatTime(e.createdAt)}</Table.Td>
            </Table.Tr>
          ))}
        </Table.Tbody>
      </Table>
    </Table.ScrollContainer>
  );
}
