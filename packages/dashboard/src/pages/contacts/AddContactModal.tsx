import { CreateContactRequest } from "@mailroom/contracts";
import { Button, Group, Modal, Stack, Switch, TextInput } from "@mantine/core";
import { schemaResolver, useForm } from "@mantine/form";
import { notifications } from "@mantine/notifications";
import { useNavigate } from "react-router";
import { useCreateContactMutation } from "../../api/contacts";
import { showFormError } from "../../components/errors";

/** POST /contacts: creates the contact (or updates the one with that email) and opens its page. */
export default function AddContactModal({ opened, onClose }: { opened: boolean; onClose: () => void }) {
  const create = useCreateContactMutation();
  const navigate = useNavigate();
  const form = useForm({ initialValues: { email: "", subscribed: true }, validate: schemaResolver(CreateContactRequest, { sync: true }) });

  const close = () => {
    form.reset();
    onClose();
  };
  const submit = form.onSubmit((values) =>
    create.mutate(
      { body: values },
      {
        onSuccess: (contact) => {
          notifications.show({ color: "green", message: contact._meta.isNew ? `${contact.email} added` : `${contact.email} already existed and was updated` });
          close();
          navigate(encodeURIComponent(contact.id));
        },
        onError: (err) => showFormError(form, err),
      },
    ),
  );

  return (
    <Modal opened={opened} onClose={close} title="Add contact">
      <form onSubmit={submit} noValidate>
        <Stack>
          <TextInput label="Email" type="email" required data-autofocus {...form.getInputProps("email")} />
          <Switch label="Subscribed" {...form.getInputProps("subscribed", { type: "checkbox" })} />
          <Group justify="flex-end">
            <Button variant="default" onClick={close}>
              Cancel
            </Button>
            <Button type="submit" loading={create.isPending}>
              Add contact
            </Button>
          </Group>
        </Stack>
      </form>
    </Modal>
  );
}
