import { Button, Group, Stack } from "@mantine/core";
import type { Topic } from "@mailroom/contracts";
import { useState } from "react";
import { useDeleteTopicMutation, useTopics } from "../../api/topics";
import { useCan } from "../../components/Can";
import { ConfirmModal } from "../../components/ConfirmModal";
import { notifyError } from "../../components/errors";
import { QueryTable } from "../../components/DataTable";
import { NewButton, PageHeader } from "../../components/PageHeader";
import { formatTime } from "../../lib/format";
import { TopicForm } from "./TopicForm";
import { FlagBadge } from "../../components/FlagBadge";

/** Topics (decisions §14): what contacts opt into one by one; the list, with create, edit and delete. */
export default function TopicsPage() {
  const topics = useTopics();
  const canEdit = useCan("editor");
  const remove = useDeleteTopicMutation();
  // null: the form is closed; "new" or a topic: it is open for that
  const [editing, setEditing] = useState<Topic | "new" | null>(null);
  const [deleting, setDeleting] = useState<Topic | null>(null);

  return (
    <Stack>
      <PageHeader
        title="Topics"
        description="A campaign sent to a topic reaches only the subscribed contacts opted into it, and its unsubscribe link leaves that topic only."
        actions={<NewButton onClick={() => setEditing("new")}>New topic</NewButton>}
      />
      <QueryTable
        label="Topics"
        query={topics}
        empty="No topics yet. Create one for each kind of email your contacts can choose (product news, a weekly digest…)."
        minWidth={640}
        columns={[
          { header: "Name", cell: (t) => t.name },
          { header: "Description", cell: (t) => t.description ?? "" },
          {
            header: "Default",
            cell: (t) => (
              <FlagBadge on={t.defaultSubscribed} yes="Opted in" no="Opted out" />
            ),
          },
          { header: "Created", cell: (t) => formatTime(t.createdAt) },
          canEdit && {
            header: "Actions",
            cell: (t) => (
              <Group gap="xs" wrap="nowrap">
                <Button size="xs" variant="default" onClick={() => setEditing(t)} aria-label={`Edit ${t.name}`}>
                  Edit
                </Button>
                <Button size="xs" variant="default" onClick={() => setDeleting(t)} aria-label={`Delete ${t.name}`}>
                  Delete
                </Button>
              </Group>
            ),
          },
        ]}
      />
      {editing && <TopicForm key={editing === "new" ? "new" : editing.id} topic={editing === "new" ? null : editing} opened onClose={() => setEditing(null)} />}
      <ConfirmModal
        opened={deleting !== null}
        title="Delete topic"
        message={`Delete "${deleting?.name ?? ""}"? Every contact's choice for it goes with it.`}
        confirmLabel="Delete"
        loading={remove.isPending}
        onClose={() => setDeleting(null)}
        onConfirm={() => remove.mutate({ params: { id: deleting!.id } }, { onSuccess: () => setDeleting(null), onError: notifyError })}
      />
    </Stack>
  );
}
