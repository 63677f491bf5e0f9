import { Card, Stack, Switch, Text, Title } from "@mantine/core";
import { notifications } from "@mantine/notifications";
import { useSendingSettings, useUpdateSendingSettingsMutation } from "../../api/settings";
import { useCan } from "../../components/Can";
import { notifyError } from "../../components/errors";
import { QueryStatus } from "../../components/QueryStatus";

export default function SettingsPage() {
  const owner = useCan("owner");
  const settings = useSendingSettings();
  const update = useUpdateSendingSettingsMutation();
  const toggle = (tracking: boolean) =>
    update.mutate(
      { body: { tracking } },
      { onSuccess: () => notifications.show({ color: "green", message: `Tracking is ${tracking ? "on" : "off"}` }), onError: notifyError },
    );

  return (
    <Stack>
      <Title order={2}>Settings</Title>
      <QueryStatus query={settings} what="settings">
        {() => (
        <Card withBorder>
          <Stack gap="xs">
            <Title order={3} size="h4">
              Sending
            </Title>
            <Switch
              label="Open and click tracking"
              description="Adds an open pixel and rewrites links in every email of this project; a send with tracking off still wins."
              checked={settings.data!.tracking}
              disabled={!owner || update.isPending}
              onChange={(e) => toggle(e.currentTarget.checked)}
            />
            {!owner && (
              <Text size="sm" c="dimmed">
                Only owners can change the project's settings.
              </Text>
            )}
          </Stack>
        </Card>
        )}
      </QueryStatus>
    </Stack>
  );
}
