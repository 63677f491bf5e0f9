import { Button, Group, Stack, Text, TextInput } from "@mantine/core";
import { useDebouncedValue, useDisclosure } from "@mantine/hooks";
import { lazy, Suspense, useState } from "react";
import { Link } from "react-router";
import { useContacts } from "../../api/contacts";
import { useCan } from "../../components/Can";
import { ExportButton } from "../../components/ExportButton";
import { CONTACT_COLUMNS } from "../../components/contact-columns";
import { QueryTable } from "../../components/DataTable";
import { NewButton, PageHeader } from "../../components/PageHeader";
import { useCursorTrail } from "../../lib/cursors";

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
      <PageHeader
        title="Contacts"
        actions={
          <>
            <ExportButton fileName="contacts" />
            {canEdit && (
              <Button variant="default" component={Link} to="import">
                Import contacts
              </Button>
            )}
            <NewButton onClick={open}>Add contact</NewButton>
          </>
        }
      />
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
      <QueryTable
        label="Contacts"
        query={contacts}
        trail={trail}
        empty={query ? `No contact matches “${query}”.` : "No contacts yet. Add one, or send an email or track an event through the API."}
        minWidth={560}
        columns={CONTACT_COLUMNS}
      />
      {adding && (
        <Suspense fallback={null}>
          <AddContactModal opened onClose={close} />
        </Suspense>
      )}
    </Stack>
  );
}
