import { CreateWorkflowRequest } from "@mailroom/contracts";
import { Button, Group, Modal, Stack, TextInput } from "@mantine/core";
import { schemaResolver, useForm } from "@mantine/form";
import { useNavigate } from "react-router";
import { useCreateWorkflowMutation } from "../../api/workflows";
import { showFormError } from "../../components/errors";
import { EventNameInput } from "./EventNameInput";

/** POST /workflows: an EVENT workflow, disabled, with its trigger; opens it on the canvas. */
export function CreateWorkflowModal({ opened, onClose }: { opened: boolean; onClose: () => void }) {
  const create = useCreateWorkflowMutation();
  const navigate = useNavigate();
  const form = useForm({ initialValues: { name: "", eventName: "" }, validate: schemaResolver(CreateWorkflowRequest, { sync: true }) });
  const close = () => {
    form.reset();
    onClose();
  };
  const submit = form.onSubmit((values) =>
    create.mutate({ body: values }, { onSuccess: (w) => (close(), navigate(encodeURIComponent(w.id))), onError: (err) => showFormError(form, err) }),
  );
  return (
    <Modal opened={opened} onClose={close} title="New workflow">
      <form onSubmit={submit} noValidate>
        <Stack>
          <TextInput label="Name" required data-autofocus {...form.getInputProps("name")} />
          <EventNameInput label="Trigger event" description="An execution starts each time a contact is tracked with this event" required {...form.getInputProps("eventName")} />
          <Group justify="flex-end">
            <Button variant="default" onClick={close}>
              Cancel
            </Button>
            <Button type="submit" loading={create.isPending}>
              Create workflow
            </Button>
          </Group>
        </Stack>
      </form>
    </Modal>
  );
}
