import type { Campaign } from "@mailroom/contracts";
import { Alert, Button, Group, Select, Stack, Text } from "@mantine/core";
import { useMemo, useState } from "react";
import { useCancelCampaignMutation } from "../../api/campaigns";
import { useCan } from "../../components/Can";
import { notifyError } from "../../components/errors";
import { formatInZone, timeZones } from "../../lib/zones";
import { zoneOf } from "./zone-memory";

/** When a SCHEDULED campaign starts, in the zone it was scheduled in (or another), and its cancel. */
export function ScheduledView({ campaign }: { campaign: Campaign }) {
  const canEdit = useCan("editor");
  const cancel = useCancelCampaignMutation();
  const [zone, setZone] = useState(() => zoneOf(campaign.id));
  const zones = useMemo(timeZones, []);
  return (
    <Alert color="grape" title="Scheduled">
      <Stack gap="xs">
        <Text size="sm" data-testid="scheduled-at">
          Starts {formatInZone(campaign.scheduledAt!, zone)}
        </Text>
        <Group align="flex-end">
          <Select label="Show in time zone" data={zones} value={zone} onChange={(z) => z && setZone(z)} searchable allowDeselect={false} w={260} />
          {canEdit && (
            <Button variant="default" loading={cancel.isPending} onClick={() => cancel.mutate({ params: { id: campaign.id } }, { onError: notifyError })}>
              Cancel schedule
            </Button>
          )}
        </Group>
        {canEdit && (
          <Text size="xs" c="dimmed">
            Cancelling makes it a draft again, to edit or send later.
          </Text>
        )}
      </Stack>
    </Alert>
  );
}
