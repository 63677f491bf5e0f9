import type { Campaign } from "@mailroom/contracts";
import { Button, Divider, Group, Paper, SegmentedControl, Select, Stack, Text, TextInput, Title } from "@mantine/core";
import { useForm } from "@mantine/form";
import { notifications } from "@mantine/notifications";
import { useMemo, useState } from "react";
import { useCampaignChecks, useSendCampaignMutation, useTestCampaignMutation } from "../../api/campaigns";
import { useFilterCount } from "../../api/segments";
import { ConfirmModal } from "../../components/ConfirmModal";
import { showFormError } from "../../components/errors";
import { recipientFilter } from "./audience";
import { failing } from "./ChecksPanel";
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
  const [confirming, setConfirming] = useState(false);
  const at = when === "later" ? zonedToUtc(local, zone) : null;

  const go = () => {
    setConfirming(false);
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
        <Button onClick={when === "now" ? () => setConfirming(true) : go} loading={send.isPending} disabled={disabled}>
          {when === "now" ? "Send now" : "Schedule"}
        </Button>
      </Group>
      {error && when === "now" && <Text c="red.8">{error}</Text>}
      {confirming && <ConfirmSend campaign={campaign} onConfirm={go} onClose={() => setConfirming(false)} />}
    </Stack>
  );
}

/**
 * "Send now" cannot be taken back, so it asks first, naming how many recipients the audience holds
 * right now (`POST /segments/count` of the campaign's recipient filter, as the composer counts them)
 * and how many pre-send checks fail.
 */
function ConfirmSend({ campaign, onConfirm, onClose }: { campaign: Campaign; onConfirm: () => void; onClose: () => void }) {
  const filter = useMemo(
    () => recipientFilter({ audienceType: campaign.type, segmentId: campaign.segmentId, audienceFilter: campaign.audienceFilter, topicId: campaign.topicId }),
    [campaign],
  );
  const count = useFilterCount(filter);
  const failed = failing(useCampaignChecks(campaign.id).data);
  const n = count.data?.count;
  const who = n === undefined ? (count.isError ? "its audience (the recipients could not be counted)" : "…") : `${n.toLocaleString()} recipient${n === 1 ? "" : "s"}`;
  return (
    <ConfirmModal
      opened
      title={`Send ${campaign.name} now?`}
      message={
        <Stack gap="xs">
          <Text size="sm" data-testid="confirm-recipients">
            It goes to {who} now, and cannot be called back.
          </Text>
          {failed > 0 && (
            <Text size="sm" fw={600}>
              {failed} pre-send check{failed === 1 ? "" : "s"} fail{failed === 1 ? "s" : ""}.
            </Text>
          )}
        </Stack>
      }
      confirmLabel={n === undefined ? "Send now" : `Send to ${n.toLocaleString()} recipient${n === 1 ? "" : "s"}`}
      color="blue.8"
      loading={n === undefined && !count.isError}
      onConfirm={onConfirm}
      onClose={onClose}
    />
  );
}

