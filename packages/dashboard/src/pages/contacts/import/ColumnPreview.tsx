import { Badge, List, Stack, Table, Text } from "@mantine/core";
import type { ColumnRole } from "./columns";
import type { FilePreview } from "./read-preview";

const ROLE_LABEL = { email: "email", subscribed: "subscribed", data: "data" } as const;
// The colours of the contact list's badges, which pass the contrast check.
const ROLE_COLOR = { email: "blue", subscribed: "blue", data: "gray" } as const;

/**
 * The file's header and first rows, each column marked with where it goes. With double opt-in on,
 * a new contact is asked to confirm instead of being subscribed, and the sentence says so.
 */
export function ColumnPreview({ preview, doubleOptIn }: { preview: FilePreview; doubleOptIn: boolean }) {
  const { columns } = preview.plan;
  const named = (role: ColumnRole["kind"]) => columns.filter((c) => c.role.kind === role).map((c) => `“${c.name}”`);
  const email = named("email")[0];
  const subscribed = named("subscribed")[0];
  const data = named("data");
  return (
    <Stack gap="sm">
      <List size="sm" spacing={4}>
        {email && <List.Item>Email address: column {email}.</List.Item>}
        <List.Item>
          {subscribed
            ? `Subscription: column ${subscribed} (true/false, yes/no or 1/0; empty leaves it as it is).`
            : doubleOptIn
              ? "No subscribed column: new contacts are sent a confirmation email and subscribed once they confirm; existing contacts keep their subscription."
              : "No subscribed column: new contacts are subscribed, existing contacts keep their subscription."}
        </List.Item>
        <List.Item>
          {data.length ? `Stored in each contact's data, under the column's name: ${data.join(", ")}.` : "No other column, so no data is stored."}
        </List.Item>
      </List>
      <Table.ScrollContainer minWidth={480}>
        <Table withTableBorder withColumnBorders aria-label="Column preview">
          <Table.Thead>
            <Table.Tr>
              {columns.map((c, i) => (
                // biome-ignore lint/suspicious/noArrayIndexKey: a file's columns are fixed; two may share a name, so the position is their identity
                <Table.Th key={i}>
                  <Stack gap={2} align="flex-start">
                    <span>{c.name || `(column ${i + 1})`}</span>
                    <Badge size="sm" variant="outline" color={ROLE_COLOR[c.role.kind]}>
                      {ROLE_LABEL[c.role.kind]}
                    </Badge>
                  </Stack>
                </Table.Th>
              ))}
            </Table.Tr>
          </Table.Thead>
          <Table.Tbody>
            {preview.rows.map((row, r) => (
              // biome-ignore lint/suspicious/noArrayIndexKey: the preview's rows never change order; the position is their identity
              <Table.Tr key={r}>
                {columns.map((_, i) => (
                  // biome-ignore lint/suspicious/noArrayIndexKey: as the header's
                  <Table.Td key={i}>{row[i] ?? ""}</Table.Td>
                ))}
              </Table.Tr>
            ))}
          </Table.Tbody>
        </Table>
      </Table.ScrollContainer>
      {preview.rows.length === 0 && (
        <Text size="sm" c="dimmed">
          The file has a header and no contact rows.
        </Text>
      )}
    </Stack>
  );
}
