import { TRIGGER_TYPES, UpdateWorkflowRequest, type Workflow } from "@mailroom/contracts";
import { Button, Group, SegmentedControl, Select, Stack, Switch, Text, Textarea, TextInput, Title } from "@mantine/core";
import { useForm } from "@mantine/form";
import { notifications } from "@mantine/notifications";
import { useMemo } from "react";
import { useSegmentOptions, useUpdateWorkflowMutation } from "../../api/workflows";
import { notifyError, showFormError } from "../../components/errors";
import { EventNameInput } from "./EventNameInput";
import { cronText, type SettingsValues as Values, settingsBody } from "./trigger";

const TIME_ZONES = (() => {
  try {
    return Intl.supportedValuesOf("timeZone");
  } catch {
    return ["UTC"];
  }
})();

/** Name, description, re-entry and the trigger (what starts an execution); enabling is the page header's switch. */
export function SettingsPanel({ workflow, canEdit }: { workflow: Workflow; canEdit: boolean }) {
  const update = useUpdateWorkflowMutation();
  const segments = useSegmentOptions();
  const c = workflow.triggerConfig as Partial<Values["triggerConfig"]>;
  const form = useForm<Values>({
    initialValues: {
      name: workflow.name,
      description: workflow.description ?? "",
      allowReentry: workflow.allowReentry,
      triggerType: workflow.triggerType,
      triggerConfig: { eventName: c.eventName ?? "", cron: c.cron ?? "", timezone: c.timezone ?? "", segmentId: c.segmentId ?? "" },
    },
    validate: (values) => {
      const parsed = UpdateWorkflowRequest.safeParse(settingsBody(workflow, values));
      const errors: Record<string, string> = {};
      for (const issue of parsed.error?.issues ?? []) errors[issue.path.join(".")] ??= issue.message;
      return errors;
    },
  });
  const submit = form.onSubmit((values) =>
    update.mutate(
      { params: { id: workflow.id }, body: settingsBody(workflow, values) },
      { onSuccess: () => (notifications.show({ color: "teal.9", message: "Workflow saved" }), form.resetDirty()), onError: (err) => showFormError(form, err) },
    ),
  );
  const cron = form.values.triggerConfig.cron;
  const cronWords = useMemo(() => (cron.trim() ? cronText(cron) : null), [cron]);
  const segmentData = (segments.data ?? []).map((s) => ({ value: s.id, label: s.name }));

  return (
    <Stack gap="md">
      <form onSubmit={submit} noValidate aria-label="Workflow settings">
        <Stack gap="sm">
          <Title order={3} size="h4">
            Settings and trigger
          </Title>
          <TextInput label="Name" required readOnly={!canEdit} {...form.getInputProps("name")} />
          <Textarea label="Description" autosize minRows={1} readOnly={!canEdit} {...form.getInputProps("description")} />
          <Switch label="Allow re-entry (a contact may go through again)" disabled={!canEdit} {...form.getInputProps("allowReentry", { type: "checkbox" })} />
          <Stack gap={4}>
            <Text size="sm" fw={500} id="trigger-type">
              Trigger
            </Text>
            <SegmentedControl
              aria-labelledby="trigger-type"
              data={TRIGGER_TYPES.map((t) => ({ value: t, label: t.charAt(0) + t.slice(1).toLowerCase() }))}
              readOnly={!canEdit}
              {...form.getInputProps("triggerType")}
            />
          </Stack>
          {form.values.triggerType === "EVENT" && <EventNameInput label="Event name" required readOnly={!canEdit} {...form.getInputProps("triggerConfig.eventName")} />}
          {form.values.triggerType === "MANUAL" && <Text size="sm">Executions start through POST /workflows/{"{id}"}/executions.</Text>}
          {form.values.triggerType === "SCHEDULE" && (
            <>
              <TextInput
                label="Cron"
                required
                placeholder="0 9 * * 1"
                description={cron.trim() ? (cronWords ?? "Not a cron expression yet") : "Five fields (minute hour day month weekday) or @daily"}
                readOnly={!canEdit}
                {...form.getInputProps("triggerConfig.cron")}
              />
              <Select label="Time zone" placeholder="UTC" data={TIME_ZONES} searchable clearable readOnly={!canEdit} {...form.getInputProps("triggerConfig.timezone")} />
              <Select
                label="Segment"
                placeholder="Every subscribed contact"
                description="Each tick starts an execution for every subscribed contact of the segment"
                data={segmentData}
                searchable
                clearable
                readOnly={!canEdit}
                {...form.getInputProps("triggerConfig.segmentId")}
              />
            </>
          )}
          {canEdit && (
            <Group>
              <Button type="submit" loading={update.isPending}>
                Save settings
              </Button>
            </Group>
          )}
        </Stack>
      </form>
    </Stack>
  );
}

/** Enabled or not, at once (no Save): always in view above the canvas. */
export function EnableSwitch({ workflow, canEdit }: { workflow: Workflow; canEdit: boolean }) {
  const update = useUpdateWorkflowMutation();
  return (
    <Switch
      label="Enabled"
      description={workflow.enabled ? "Its trigger starts executions" : "Nothing starts until enabled"}
      checked={workflow.enabled}
      disabled={!canEdit || update.isPending}
      onChange={(e) => update.mutate({ params: { id: workflow.id }, body: { enabled: e.currentTarget.checked } }, { onError: notifyError })}
    />
  );
}
