import type { Campaign } from "@mailroom/contracts";
import { Button, Divider, Group, Paper, SegmentedControl, Select, Stack, Text, TextInput, Title } from "@mantine/core";
import { useForm } from "@mantine/form";
import { notifications } from "@mantine/notifications";
import { useMemo, useState } from "react";
import { useSendCampaignMutation, useTestCampaignMutation } from "../../api/campaigns";
import { showFormError } from "../../components/errors";
import { formatInZone, localZone, timeZones, utcToZoned, zonedToUtc } from "../../lib/zones";
import { rememberZone } from "./zone-memory";

/** A test copy, then send now or at a time in a chosen time zone (stored in UTC). */
export function SendPanel({ campaign, dirty }: { campaign: Campaign; dirty: boolean }) {
  return (
    <Paper withBorder p="md">
      <Stack>
        <Title order={3}>Send</Title>
        {dirty && <Text size="sm">Sending uses the saved campaign: save your changes first.</Text>}
        <TestSend campaign={campaign} />
        <Divider />
        <SendOrSchedule campaign={campaign} disabled={dirty} />
      </Stack>
    </Paper>
  );
}

function TestSend({ campaign }: { campaign: Campaign }) {
  const test = useTestCampaignMutation();
  const form = useForm({ initialValues: { email: "" } });
  const submit = form.onSubmit(({ email }) =>
    test.mutate(
      { params: { id: campaign.id }, body: { email: email.trim() } },
      { onSuccess: () => notifications.show({ color: "teal.9", message: `Test sent to ${email.trim()}` }), onError: (err) => showFormError(form, err) },
    ),
  );
  return (
    <form onSubmit={submit} noValidate aria-label="Send a test">
      <Group align="flex-end">
        <TextInput label="Send a test to" type="email" required {...form.getInputProps("email")} style={{ flex: 1 }} />
        <Button type="submit" variant="default" loading={test.isPending}>
          Send test
        </Button>
      </Group>
    </form>
  );
}

function SendOrSchedule({ campaign, disabled }: { campaign: Campaign; disabled: boolean }) {
  const send = useSendCampaignMutation();
  const [when, setWhen] = useState<"now" | "later">("now");
  const [zone, setZone] = useState(localZone);
  const zones = useMemo(timeZones, []);
  // An hour from now, in the zone, as the first suggestion.
  const [local, setLocal] = useState(() => utcToZoned(new Date(Date.now() + 3_600_000).toISOString(), localZone()));
  const [error, setError] = useState<string | null>(null);
  const at = when === "later" ? zonedToUtc(local, zone) : null;

  const go = () => {
    if (when === "later" && !at) return setError("Pick a date and time");
    setError(null);
    send.mutate(
      { params: { id: campaign.id }, body: { scheduledFor: at } },
      {
        onSuccess: ({ data }) => {
          if (at) rememberZone(campaign.id, zone);
          notifications.show({ color: "teal.9", message: data.status === "SCHEDULED" ? `Scheduled for ${formatInZone(data.scheduledAt!, zone)}` : "Sending started" });
        },
        // scheduledFor's message (e.g. in the past) goes at the time field; the rest (DOMAIN_NOT_VERIFIED…) to a notification
        onError: (err) => showFormError({ getValues: () => ({ scheduledFor: "" }), setFieldError: (_f, m) => setError(String(m)) }, err),
      },
    );
  };

  return (
    <Stack gap="xs">
      <SegmentedControl
        aria-label="When"
        value={when}
        onChange={(v) => setWhen(v as "now" | "later")}
        data={[
          { value: "now", label: "Send now" },
          { value: "later", label: "Schedule" },
        ]}
        w="fit-content"
      />
      {when === "later" && (
        <Group align="flex-start" grow>
          <TextInput label="Date and time" type="datetime-local" step={1} value={local} onChange={(e) => setLocal(e.currentTarget.value)} error={error} />
          <Select label="Time zone" data={zones} value={zone} onChange={(z) => z && setZone(z)} searchable allowDeselect={false} />
        </Group>
      )}
      {when === "later" && at && (
        <Text size="sm" c="dimmed">
          Starts {formatInZone(at, zone)}, {new Date(at).toISOString().slice(0, 16).replace("T", " ")} UTC.
        </Text>
      )}
      <Group>
        <Button onClick={go} loading={send.isPending} disabled={disabled}>
          {when === "now" ? "Send now" : "Schedule"}
        </Button>
      </Group>
      {error && when === "now" && <Text c="red.8">{error}</Text>}
    </Stack>
  );
}

