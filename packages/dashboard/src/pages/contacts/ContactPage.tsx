import { Button, Group, Modal, SimpleGrid, Stack, Switch, Text, Title } from "@mantine/core";
import { useDisclosure } from "@mantine/hooks";
import { notifications } from "@mantine/notifications";
import { useNavigate, useParams } from "react-router";
import { useContact, useDeleteContactMutation, useUpdateContactMutation } from "../../api/contacts";
import { useEmails } from "../../api/emails";
import { useCan } from "../../components/Can";
import { EmailTable } from "../../components/EmailTable";
import { notifyError } from "../../components/errors";
import { LoadError, Loading } from "../../components/QueryState";
import { formatTime } from "../../lib/format";
import { ContactEvents } from "./ContactEvents";
import { ContactTopics } from "./ContactTopics";
import { DataEditor } from "./DataEditor";
import { PageHeader } from "../../components/PageHeader";
import { FlagBadge } from "../../components/FlagBadge";

function Field({ label, children }: { label: string; children: React.ReactNode }) {
  return (
    <Stack gap={2}>
      <Text size="sm" c="dimmed">
        {label}
      </Text>
      <Text>{children}</Text>
    </Stack>
  );
}

export default function ContactPage() {
  const id = useParams().id ?? "";
  const contact = useContact(id);
  const emails = useEmails({ contactId: id }, 20);
  const update = useUpdateContactMutation();
  const remove = useDeleteContactMutation();
  const canEdit = useCan("editor");
  const navigate = useNavigate();
  const [confirming, confirm] = useDisclosure(false);

  if (contact.isPending) return <Loading />;
  if (contact.isError) return <LoadError error={contact.error} onRetry={() => contact.refetch()} />;
  const c = contact.data;

  const setSubscribed = (subscribed: boolean) =>
    update.mutate({ params: { id: c.id }, body: { subscribed } }, { onError: notifyError });
  const deleteContact = () =>
    remove.mutate(
      { params: { id: c.id } },
      {
        onSuccess: () => {
          notifications.show({ color: "green", message: `${c.email} deleted` });
          navigate("/contacts", { replace: true });
        },
        onError: notifyError,
      },
    );

  return (
    <Stack gap="lg">
      <PageHeader
        title={c.email}
        back={{ to: "/contacts", label: "All contacts" }}
        actions={
          canEdit && (
            <Button color="red" variant="outline" onClick={confirm.open}>
              Delete contact
            </Button>
          )
        }
      />
      <SimpleGrid cols={{ base: 1, sm: 3 }}>
        <Field label="ID">{c.id}</Field>
        <Field label="Created">{formatTime(c.createdAt)}</Field>
        <Field label="Updated">{formatTime(c.updatedAt)}</Field>
      </SimpleGrid>
      {canEdit ? (
        <Switch
          label="Subscribed to marketing email"
          checked={c.subscribed}
          disabled={update.isPending}
          onChange={(e) => setSubscribed(e.currentTarget.checked)}
        />
      ) : (
        <Group gap="xs">
          <Text>Subscription:</Text>
          <FlagBadge on={c.subscribed} yes="Subscribed" no="Unsubscribed" />
        </Group>
      )}
      <ContactTopics contact={c} canEdit={canEdit} />
      <DataEditor key={c.updatedAt} contact={c} canEdit={canEdit} />
      <ContactEvents id={c.id} />
      <Stack gap="xs">
        <Title order={3}>Emails</Title>
        <EmailTable
          label="Emails"
          caption={emails.data?.hasMore ? "The 20 latest emails" : "Emails sent to this contact"}
          query={emails}
          empty="No email was sent to this contact yet."
        />
      </Stack>
      <Modal opened={confirming} onClose={confirm.close} title="Delete contact?">
        <Stack>
          <Text>
            {c.email} and its data and events are deleted for good. Emails already sent stay in the log without the contact.
          </Text>
          <Group justify="flex-end">
            <Button variant="default" onClick={confirm.close}>
              Cancel
            </Button>
            <Button color="red" loading={remove.isPending} onClick={deleteContact}>
              Delete
            </Button>
          </Group>
        </Stack>
      </Modal>
    </Stack>
  );
}
