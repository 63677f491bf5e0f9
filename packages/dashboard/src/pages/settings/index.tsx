import { Card, Select, Stack, Switch, Text, Title } from "@mantine/core";
import type { UpdateSendingSettingsRequest } from "@mailroom/contracts";
import { notifications } from "@mantine/notifications";
import { useSendingSettings, useUpdateSendingSettingsMutation } from "../../api/settings";
import { useTemplates } from "../../api/templates";
import { useCan } from "../../components/Can";
import { notifyError } from "../../components/errors";
import { QueryStatus } from "../../components/QueryStatus";
import { PageHeader } from "../../components/PageHeader";
import { FrequencyCapFields } from "./FrequencyCapFields";

export default function SettingsPage() {
  const owner = useCan("owner");
  const settings = useSendingSettings();
  const update = useUpdateSendingSettingsMutation();
  const templates = useTemplates({ page: 1 });
  const save = (body: UpdateSendingSettingsRequest, message: string) =>
    update.mutate({ body }, { onSuccess: () => notifications.show({ color: "green", message }), onError: notifyError });
  const toggle = (tracking: boolean) => save({ tracking }, `Tracking is ${tracking ? "on" : "off"}`);
  const templateOptions = (templates.data?.templates ?? []).map((t) => ({ value: t.id, label: t.name }));

  return (
    <Stack>
      <PageHeader title="Settings" />
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
            <Switch
              label="Double opt-in"
              description="A subscription made with a public key (a signup form) starts unsubscribed and is confirmed by a link emailed to the address. Secret keys still subscribe directly."
              checked={settings.data!.doubleOptIn.enabled}
              disabled={!owner || update.isPending}
              onChange={(e) => {
                const enabled = e.currentTarget.checked;
                save({ doubleOptIn: { enabled } }, `Double opt-in is ${enabled ? "on" : "off"}`);
              }}
            />
            <Select
              label="Confirmation email"
              description="A template of yours (it gets {{ confirmUrl }}), or Mailroom's default"
              placeholder="Mailroom's default"
              data={templateOptions}
              value={settings.data!.doubleOptIn.templateId}
              clearable
              disabled={!owner || update.isPending || !settings.data!.doubleOptIn.enabled}
              onChange={(templateId) =>
                save({ doubleOptIn: { enabled: settings.data!.doubleOptIn.enabled, templateId } }, "Confirmation email saved")
              }
              maw={420}
            />
            <FrequencyCapFields
              cap={settings.data!.frequencyCap}
              disabled={!owner || update.isPending}
              onSave={(frequencyCap) =>
                save({ frequencyCap }, frequencyCap ? `Frequency cap: ${frequencyCap.max} in ${frequencyCap.days} days` : "Frequency cap is off")
              }
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
