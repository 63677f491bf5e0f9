import type { Contact } from "@mailroom/contracts";
import { Group, Stack, Switch, Text, Title } from "@mantine/core";
import { useUpdateContactMutation } from "../../api/contacts";
import { useTopics } from "../../api/topics";
import { notifyError } from "../../components/errors";
import { QueryStatus } from "../../components/QueryStatus";
import { Empty } from "../../components/QueryState";
import { topicChoices } from "./topic-choices";
import { FlagBadge } from "../../components/FlagBadge";

/**
 * The contact's topics (decisions.md §14): one switch per project topic showing what the contact
 * receives, its own choice or else the topic's default (marked, since it follows the default).
 * A switch saves that topic's choice alone; viewers see the same values without switches.
 */
export function ContactTopics({ contact, canEdit }: { contact: Contact; canEdit: boolean }) {
  const topics = useTopics();
  const update = useUpdateContactMutation();
  // While a choice is saved (and the contact read again), its switch shows the value asked for.
  const asked = update.isPending ? update.variables?.body?.topics : undefined;
  const choose = (topicId: string, optedIn: boolean) =>
    update.mutate({ params: { id: contact.id }, body: { topics: { [topicId]: optedIn } } }, { onError: notifyError });

  return (
    <Stack gap="xs">
      <Title order={3}>Topics</Title>
      <QueryStatus query={topics} what="topics">
        {() => {
          const choices = topicChoices(topics.data!, contact.topics);
          if (choices.length === 0) return <Empty>This project has no topics yet.</Empty>;
          return choices.map(({ topic, optedIn, byDefault }) => {
            const marked = byDefault ? "Default: follows the topic's setting" : "Set for this contact";
            if (!canEdit)
              return (
                <Group key={topic.id} gap="xs">
                  <Text>{topic.name}</Text>
                  <FlagBadge on={optedIn} yes="Opted in" no="Opted out" />
                  {byDefault && (
                    <Text size="sm" c="dimmed">
                      (default)
                    </Text>
                  )}
                </Group>
              );
            return (
              <Switch
                key={topic.id}
                label={topic.name}
                description={marked}
                checked={asked?.[topic.id] ?? optedIn}
                disabled={update.isPending}
                onChange={(e) => choose(topic.id, e.currentTarget.checked)}
              />
            );
          });
        }}
      </QueryStatus>
    </Stack>
  );
}
