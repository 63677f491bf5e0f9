import { Anchor, Badge, Button, Group, Stack, Table, Text, TextInput, Title } from "@mantine/core";
import { useDebouncedValue, useDisclosure } from "@mantine/hooks";
import { lazy, Suspense, useState } from "react";
import { Link } from "react-router";
import { useContacts } from "../../api/contacts";
import { useCan } from "../../components/Can";
import { ExportButton } from "../../components/ExportButton";
import { Pager } from "../../components/Pager";
import { Empty, LoadError, Loading } from "../../components/QueryState";
import { useCursorTrail } from "../../lib/cursors";
import { formatTime } from "../../lib/format";

// The form (Modal, @mantine/form, the schema) loads on first use, outside the list's size budget.
const AddContactModal = lazy(() => import("./AddContactModal"));

/** One page of contacts at a time, searched on the server, so a million contacts cost one page. */
export function ContactList() {
  const [search, setSearch] = useState("");
  const [debounced] = useDebouncedValue(search.trim(), 300);
  const trail = useCursorTrail(debounced);
  const query = debounced || undefined;
  const contacts = useContacts({ search: query, cursor: trail.cursor });
  // The API counts on the first page only; this is that page's query, already cached once seen.
  const total = useContacts({ search: query }).data?.total;
  const canEdit = useCan("editor");
  const [adding, { open, close }] = useDisclosure(false);

  return (
    <Stack>
      <Group justify="space-between">
        <Title order={2}>Contacts</Title>
        <Group gap="xs">
          <ExportButton fileName="contacts" />
          {canEdit && (
            <Button variant="default" component={Link} to="import">
              Import contacts
            </Button>
          )}
          {canEdit && <Button onClick={open}>Add contact</Button>}
        </Group>
      </Group>
      <Group justify="space-between" align="flex-end">
        <TextInput
          label="Search contacts"
          placeholder="Email address"
          type="search"
          w={360}
          maw="100%"
          value={search}
          onChange={(e) => setSearch(e.currentTarget.value)}
        />
        {total !== undefined && (
          <Text size="sm" c="dimmed" aria-live="polite">
            {total} contact{total === 1 ? "" : "s"}
            {query ? " found" : ""}
          </Text>
        )}
      </Group>
      {contacts.isPending ? (
        <Loading />
      ) : contacts.isError ? (
        <LoadError error={contacts.error} onRetry={() => contacts.refetch()} />
      ) : contacts.data.data.length === 0 ? (
        <Empty>{query ? `No contact matches “${query}”.` : "No contacts yet. Add one, or send an email or track an event through the API."}</Empty>
      ) : (
        <>
          <Table.ScrollContainer minWidth={560}>
            <Table striped highlightOnHover>
              <Table.Thead>
                <Table.Tr>
                  <Table.Th>Email</Table.Th>
                  <Table.Th>Subscription</Table.Th>
                  <Table.Th>Created</Table.Th>
                </Table.Tr>
              </Table.Thead>
              <Table.Tbody>
                {contacts.data.data.map((c) => (
                  <Table.Tr key={c.id}>
                    <Table.Td>
                      <Anchor component={Link} to={encodeURIComponent(c.id)}>
                        {c.email}
                      </Anchor>
                    </Table.Td>
                    <Table.Td>
                      <Badge variant="outline" color={c.subscribed ? "blue" : "gray"}>
                        {c.subscribed ? "Subscribed" : "Unsubscribed"}
                      </Badge>
                    </Table.Td>
                    <Table.Td>{formatTime(c.createdAt)}</Table.Td>
                  </Table.Tr>
                ))}
              </Table.Tbody>
            </Table>
          </Table.ScrollContainer>
          <Pager
            label="Contacts"
            page={trail.page}
            hasPrevious={trail.hasPrevious}
            hasMore={contacts.data.hasMore && contacts.data.cursor !== null}
            onPrevious={trail.previous}
            onNext={() => contacts.data.cursor && trail.next(contacts.data.cursor)}
          />
        </>
      )}
      {adding && (
        <Suspense fallback={null}>
          <AddContactModal opened onClose={close} />
        </Suspense>
      )}
    </Stack>
  );
}
