import { Button, Group, Modal, Stack, Switch, TextInput, Textarea } from "@mantine/core";
import { useForm } from "@mantine/form";
import type { Topic } from "@mailroom/contracts";
import { useCreateTopicMutation, useUpdateTopicMutation } from "../../api/topics";
import { showFormError } from "../../components/errors";

/** Create (no `topic`) or edit a topic in a modal; the API's 400 shows at the field it names. */
export function TopicForm({ topic, opened, onClose }: { topic: Topic | null; opened: boolean; onClose: () => void }) {
  const create = useCreateTopicMutation();
  const update = useUpdateTopicMutation();
  const form = useForm({
    initialValues: { name: topic?.name ?? "", description: topic?.description ?? "", defaultSubscribed: topic?.defaultSubscribed ?? false },
    validate: { name: (v) => (v.trim() ? null : "Enter a name") },
  });
  const submit = form.onSubmit((v) => {
    const body = { name: v.name, description: v.description.trim() ? v.description : null, defaultSubscribed: v.defaultSubscribed };
    const done = { onSuccess: onClose, onError: (err: unknown) => showFormError(form, err) };
    if (topic) update.mutate({ params: { id: topic.id }, body }, done);
    else create.mutate({ body }, done);
  });
  return (
    <Modal opened={opened} onClose={onClose} title={topic ? "Edit topic" : "New topic"} centered>
      <form onSubmit={submit}>
        <Stack>
          <TextInput label="Name" required data-autofocus {...form.getInputProps("name")} />
          <Textarea label="Description" description="Shown under the topic's checkbox on the manage page" autosize minRows={2} {...form.getInputProps("description")} />
          <Switch
            label="Subscribed by default"
            description="Contacts that never chose for this topic count as opted in"
            {...form.getInputProps("defaultSubscribed", { type: "checkbox" })}
          />
          <Group justify="flex-end">
            <Button variant="default" onClick={onClose}>
              Cancel
            </Button>
            <Button type="submit" loading={create.isPending || update.isPending}>
              {topic ? "Save" : "Create topic"}
            </Button>
          </Group>
        </Stack>
      </form>
    </Modal>
  );
}
