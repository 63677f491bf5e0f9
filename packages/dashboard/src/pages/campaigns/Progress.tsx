import type { Campaign } from "@mailroom/contracts";
import { Progress as Bar, Paper, SimpleGrid, Stack, Text, Title } from "@mantine/core";
import { lazy, Suspense, useEffect, useState } from "react";
import { useCampaignHourlyStats } from "../../api/stats";
import { Loading } from "../../components/QueryState";
import { addSample, processedPercent, type Sample } from "./progress-samples";

// recharts loads with a sending or sent campaign's page, never with the list or the composer.
const ProgressCharts = lazy(() => import("./ProgressCharts"));

const HOUR = 3_600_000;

function Count({ label, value }: { label: string; value: number }) {
  return (
    <Paper withBorder p="sm">
      <Text size="sm" c="dimmed">
        {label}
      </Text>
      <Text fz={24} fw={700} data-testid={`count-${label.toLowerCase()}`}>
        {value.toLocaleString()}
      </Text>
    </Paper>
  );
}

/** Recipients, sent, delivered and failed as they move, and the same over time. */
export function Progress({ campaign }: { campaign: Campaign }) {
  const s = campaign.stats;
  const sending = campaign.status === "SENDING";
  // Readings taken while this page watches (the campaign is polled each second while sending).
  const [samples, setSamples] = useState<readonly Sample[]>([]);
  useEffect(() => setSamples((prev) => addSample(prev, Date.now(), s)), [s]);
  // The hours from the start on, fixed for the visit so the query's key stays the same.
  const [range] = useState(() => {
    const start = Math.floor(Date.parse(campaign.scheduledAt ?? campaign.updatedAt) / HOUR) * HOUR;
    return { from: new Date(start).toISOString(), to: new Date(start + 47 * HOUR).toISOString() };
  });
  const hourly = useCampaignHourlyStats(campaign.id, range.from, range.to, sending ? 5000 : false);
  const percent = processedPercent(s);

  return (
    <Stack>
      <Title order={3}>{sending ? "Sending" : "Delivery"}</Title>
      <SimpleGrid cols={{ base: 2, sm: 4 }}>
        <Count label="Recipients" value={s.recipients} />
        <Count label="Sent" value={s.sent} />
        <Count label="Delivered" value={s.delivered} />
        <Count label="Failed" value={s.failed} />
        {s.skipped > 0 && <Count label="Skipped (frequency cap)" value={s.skipped} />}
        {s.waiting > 0 && <Count label="Waiting for local time" value={s.waiting} />}
      </SimpleGrid>
      <Bar value={percent} aria-label={`Processed ${Math.round(percent)}% of the recipients`} animated={sending} striped={sending} />
      <Suspense fallback={<Loading what="the charts" />}>
        <ProgressCharts samples={samples} hourly={(hourly.data?.series ?? []).filter((p) => Date.parse(p.at) <= Date.now())} />
      </Suspense>
    </Stack>
  );
}
