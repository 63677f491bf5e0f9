import type { Email, EmailEventType } from "@mailroom/contracts";
import { Anchor, Badge, Table } from "@mantine/core";
import { Link } from "react-router";
import { formatTime } from "../lib/format";

const COLORS: Record<EmailEventType, string> = {
  QUEUED: "gray",
  SENT: "blue",
  DELIVERED: "teal",
  OPENED: "green",
  CLICKED: "violet",
  BOUNCED: "red",
  COMPLAINED: "red",
  FAILED: "red",
  UNSUBSCRIBED: "grape",
};

/** A status or event type as a badge; autoContrast picks the text colour that stays readable. */
export function StatusBadge({ status }: { status: EmailEventType }) {
  return (
    <Badge color={COLORS[status]} variant="filled" autoContrast>
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
