import type { StatsPoint } from "@mailroom/contracts";
import { Paper, SimpleGrid, Stack, Text, Title } from "@mantine/core";
import { lazy, Suspense, useState } from "react";
import { useDailyStats } from "../../api/stats";
import { Empty, LoadError, Loading } from "../../components/QueryState";
import { rate } from "../../lib/format";
import { lastDays, totals } from "./week";

// recharts is large: it loads with the Overview's chart, never with sign-in or Contacts.
const DailyChart = lazy(() => import("./DailyChart"));

function Stat({ label, value, hint }: { label: string; value: string; hint?: string }) {
  return (
    <Paper withBorder p="md">
      <Text size="sm" c="dimmed">
        {label}
      </Text>
      <Text fz={28} fw={700}>
        {value}
      </Text>
      {hint && (
        <Text size="xs" c="dimmed">
          {hint}
        </Text>
      )}
    </Paper>
  );
}

const RATES: { key: keyof Omit<StatsPoint, "at">; label: string }[] = [
  { key: "delivered", label: "Delivery rate" },
  { key: "opened", label: "Open rate" },
  { key: "clicked", label: "Click rate" },
  { key: "bounced", label: "Bounce rate" },
  { key: "complained", label: "Complaint rate" },
];

function Week({ series }: { series: readonly StatsPoint[] }) {
  const sum = totals(series);
  if (sum.sent === 0 && sum.failed === 0) {
    return <Empty>Nothing was sent in the last 7 days. Emails sent through the API, campaigns and workflows are counted here.</Empty>;
  }
  return (
    <>
      <SimpleGrid cols={{ base: 2, sm: 3, lg: 6 }}>
        <Stat label="Sent in the last 7 days" value={sum.sent.toLocaleString()} hint={sum.failed ? `${sum.failed} failed` : undefined} />
        {RATES.map((r) => (
          <Stat key={r.key} label={r.label} value={rate(sum[r.key], sum.sent)} hint={`${sum[r.key].toLocaleString()} of ${sum.sent.toLocaleString()} sent`} />
        ))}
      </SimpleGrid>
      <Text size="sm" c="dimmed">
        Every rate is counted over the emails sent in the same 7 days (UTC days).
      </Text>
      <Suspense fallback={<Loading />}>
        <DailyChart series={series} />
      </Suspense>
    </>
  );
}

/** This week's sending: the count of sends, the rates over them, and a day-by-day chart. */
export default function OverviewPage() {
  // Fixed for the visit, so the query's key (and its cache) stays the same across renders.
  const [range] = useState(() => lastDays(7, new Date()));
  const stats = useDailyStats(range.from, range.to);

  return (
    <Stack>
      <Title order={2}>Overview</Title>
      {stats.isPending ? (
        <Loading />
      ) : stats.isError ? (
        <LoadError error={stats.error} onRetry={() => stats.refetch()} />
      ) : (
        <Week series={stats.data.series} />
      )}
    </Stack>
  );
}
