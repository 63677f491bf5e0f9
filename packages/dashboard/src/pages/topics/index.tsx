import { Badge, Button, Group, Stack, Table, Text, Title } from "@mantine/core";
import type { Topic } from "@mailroom/contracts";
import { useState } from "react";
import { useDeleteTopicMutation, useTopics } from "../../api/topics";
import { useCan } from "../../components/Can";
import { ConfirmModal } from "../../components/ConfirmModal";
import { notifyError } from "../../components/errors";
import { QueryStatus } from "../../components/QueryStatus";
import { Empty } from "../../components/QueryState";
import { formatTime } from "../../lib/format";
import { TopicForm } from "./TopicForm";

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
      <Group justify="space-between">
        <Title order={2}>Topics</Title>
        {canEdit && <Button onClick={() => setEditing("new")}>New topic</Button>}
      </Group>
      <Text size="sm" c="dimmed">
        A campaign sent to a topic reaches only the subscribed contacts opted into it, and its unsubscribe link leaves that topic only.
      </Text>
      <QueryStatus query={topics} what="topics">
        {() =>
          topics.data!.length === 0 ? (
            <Empty>No topics yet. Create one for each kind of email your contacts can choose (product news, a weekly digest…).</Empty>
          ) : (
            <Table.ScrollContainer minWidth={640}>
              <Table striped aria-label="Topics">
                <Table.Thead>
                  <Table.Tr>
                    <Table.Th>Name</Table.Th>
                    <Table.Th>Description</Table.Th>
                    <Table.Th>Default</Table.Th>
                    <Table.Th>Created</Table.Th>
                    {canEdit && <Table.Th>Actions</Table.Th>}
                  </Table.Tr>
                </Table.Thead>
                <Table.Tbody>
                  {topics.data!.map((t) => (
                    <Table.Tr key={t.id}>
                      <Table.Td>{t.name}</Table.Td>
                      <Table.Td>{t.description ?? ""}</Table.Td>
                      <Table.Td>
                        <Badge variant="outline" color={t.defaultSubscribed ? "blue" : "gray"}>
                          {t.defaultSubscribed ? "Opted in" : "Opted out"}
                        </Badge>
                      </Table.Td>
                      <Table.Td>{formatTime(t.createdAt)}</Table.Td>
                      {canEdit && (
                        <Table.Td>
                          <Group gap="xs" wrap="nowrap">
                            <Button size="xs" variant="default" onClick={() => setEditing(t)} aria-label={`Edit ${t.name}`}>
                              Edit
                            </Button>
                            <Button size="xs" variant="default" onClick={() => setDeleting(t)} aria-label={`Delete ${t.name}`}>
                              Delete
                            </Button>
                          </Group>
                        </Table.Td>
                      )}
                    </Table.Tr>
                  ))}
                </Table.Tbody>
              </Table>
            </Table.ScrollContainer>
          )
        }
      </QueryStatus>
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
