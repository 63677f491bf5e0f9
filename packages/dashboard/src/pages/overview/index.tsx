import type { StatsInterval, StatsPoint } from "@mailroom/contracts";
import { Group, Paper, SegmentedControl, Select, SimpleGrid, Stack, Text, } from "@mantine/core";
import { lazy, Suspense, useMemo } from "react";
import { useSearchParams } from "react-router";
import { useCampaignOptions } from "../../api/campaigns";
import { useStats } from "../../api/stats";
import { Empty, LoadError, Loading } from "../../components/QueryState";
import { rate } from "../../lib/format";
import { bounds, intervalFor, intervalsOf, RANGES, type Range, rangeByKey, totals } from "./range";
import { PageHeader } from "../../components/PageHeader";

// recharts is large: it loads with the Overview's charts, never with sign-in or Contacts.
const Charts = lazy(() => import("./Charts"));

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
  { key: "unsubscribed", label: "Unsubscribe rate" },
];

function Figures({ series, range, interval }: { series: readonly StatsPoint[]; range: Range; interval: StatsInterval }) {
  const sum = totals(series);
  const period = range.label.toLowerCase();
  if (sum.sent === 0 && sum.failed === 0) {
    return <Empty>Nothing was sent in the {period}. Emails sent through the API, campaigns and workflows are counted here.</Empty>;
  }
  return (
    <>
      <SimpleGrid cols={{ base: 2, sm: 4, lg: 7 }}>
        <Stat label={`Sent in the ${period}`} value={sum.sent.toLocaleString()} hint={sum.failed ? `${sum.failed} failed` : undefined} />
        {RATES.map((r) => (
          <Stat key={r.key} label={r.label} value={rate(sum[r.key], sum.sent)} hint={`${sum[r.key].toLocaleString()} of ${sum.sent.toLocaleString()} sent`} />
        ))}
      </SimpleGrid>
      <Text size="sm" c="dimmed">
        Every rate is counted over the emails sent in the same period; {interval === "hour" ? "hours" : "days"} are UTC.
      </Text>
      <Suspense fallback={<Loading />}>
        <Charts series={series} interval={interval} />
      </Suspense>
    </>
  );
}

/**
 * Sending over a period: the count of sends, the rates over them, and the series per day or hour,
 * for the whole project or one campaign. The choices live in the URL, so a view can be bookmarked.
 */
export default function OverviewPage() {
  const [params, setParams] = useSearchParams();
  const range = rangeByKey(params.get("range"));
  const interval = intervalFor(range, params.get("interval"));
  const campaignId = params.get("campaign");
  // Fixed per choice, so the query's key (and its cache) stays the same across renders.
  const { from, to } = useMemo(() => bounds(range, interval, new Date()), [range, interval]);
  const stats = useStats({ from, to, interval, ...(campaignId ? { campaignId } : {}) });
  const campaigns = useCampaignOptions();

  const choose = (key: string, value: string | null) =>
    setParams(
      (p) => {
        const next = new URLSearchParams(p);
        if (value) next.set(key, value);
        else next.delete(key);
        return next;
      },
      { replace: true },
    );

  return (
    <Stack>
      <PageHeader title="Overview" />
      <Group align="end" wrap="wrap">
        <Select
          label="Period"
          data={RANGES.map((r) => ({ value: r.key, label: r.label }))}
          value={range.key}
          onChange={(v) => choose("range", v)}
          allowDeselect={false}
          w={180}
        />
        <div>
          <Text size="sm" fw={500} mb={2} id="interval-label">
            Points
          </Text>
          <SegmentedControl
            aria-labelledby="interval-label"
            data={[
              { value: "hour", label: "Hourly", disabled: !intervalsOf(range).includes("hour") },
              { value: "day", label: "Daily", disabled: !intervalsOf(range).includes("day") },
            ]}
            value={interval}
            onChange={(v) => choose("interval", v)}
          />
        </div>
        <Select
          label="Campaign"
          placeholder="All email"
          data={campaigns.options}
          value={campaignId}
          onChange={(v) => choose("campaign", v)}
          searchable
          clearable
          nothingFoundMessage="No campaign by that name"
          w={260}
        />
      </Group>
      {stats.isPending ? (
        <Loading />
      ) : stats.isError ? (
        <LoadError error={stats.error} onRetry={() => stats.refetch()} />
      ) : (
        <Figures series={stats.data.series} range={range} interval={interval} />
      )}
    </Stack>
  );
}
