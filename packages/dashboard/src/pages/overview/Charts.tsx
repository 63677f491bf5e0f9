import type { StatsInterval, StatsPoint } from "@mailroom/contracts";
import { Paper, Title } from "@mantine/core";
import { Bar, BarChart, CartesianGrid, Legend, Line, LineChart, ResponsiveContainer, Tooltip, XAxis, YAxis } from "recharts";
import { ratesOf } from "./range";

const COUNTS = [
  { key: "sent", name: "Sent", color: "var(--mantine-color-blue-8)" },
  { key: "delivered", name: "Delivered", color: "var(--mantine-color-teal-9)" },
  { key: "opened", name: "Opened", color: "var(--mantine-color-cyan-9)" },
  { key: "clicked", name: "Clicked", color: "var(--mantine-color-indigo-8)" },
  { key: "bounced", name: "Bounced", color: "var(--mantine-color-red-9)" },
] as const;
const RATES = [
  { key: "delivered", name: "Delivery rate", color: "var(--mantine-color-teal-9)" },
  { key: "opened", name: "Open rate", color: "var(--mantine-color-cyan-9)" },
  { key: "clicked", name: "Click rate", color: "var(--mantine-color-indigo-8)" },
  { key: "bounced", name: "Bounce rate", color: "var(--mantine-color-red-9)" },
] as const;
/** Past this many points bars become slivers: lines read better. */
const MAX_BARS = 31;

// The counters are kept per UTC hour, so the labels are UTC too (the page says so).
const labelOf = (interval: StatsInterval) => (at: string) =>
  new Date(at).toLocaleString(undefined, {
    month: "short",
    day: "numeric",
    ...(interval === "hour" ? { hour: "2-digit", minute: "2-digit" } : {}),
    timeZone: "UTC",
  });

function Figure({ id, title, children }: { id: string; title: string; children: React.ReactElement }) {
  return (
    <Paper withBorder p="md" component="figure" m={0} aria-labelledby={id}>
      <Title order={3} id={id} mb="sm">
        {title}
      </Title>
      <ResponsiveContainer width="100%" height={280}>
        {children}
      </ResponsiveContainer>
    </Paper>
  );
}

/**
 * Emails per point and each point's rates over its own sends. The cards above say the totals in text,
 * so each picture is a figure with a name.
 */
export default function Charts({ series, interval }: { series: readonly StatsPoint[]; interval: StatsInterval }) {
  const label = labelOf(interval);
  const counts = series.map((p) => ({ ...p, label: label(p.at) }));
  const rates = ratesOf(series).map((p) => ({ ...p, label: label(p.at) }));
  const per = interval === "hour" ? "hour" : "day";
  const axis = <XAxis dataKey="label" minTickGap={24} />;
  return (
    <>
      <Figure id="counts-chart-title" title={`Emails per ${per}`}>
        {series.length <= MAX_BARS ? (
          <BarChart data={counts} accessibilityLayer={false}>
            <CartesianGrid strokeDasharray="3 3" vertical={false} />
            {axis}
            <YAxis allowDecimals={false} />
            <Tooltip />
            <Legend />
            {COUNTS.map((s) => (
              <Bar key={s.key} dataKey={s.key} name={s.name} fill={s.color} isAnimationActive={false} />
            ))}
          </BarChart>
        ) : (
          <LineChart data={counts} accessibilityLayer={false}>
            <CartesianGrid strokeDasharray="3 3" vertical={false} />
            {axis}
            <YAxis allowDecimals={false} />
            <Tooltip />
            <Legend />
            {COUNTS.map((s) => (
              <Line key={s.key} dataKey={s.key} name={s.name} stroke={s.color} dot={false} isAnimationActive={false} />
            ))}
          </LineChart>
        )}
      </Figure>
      <Figure id="rates-chart-title" title={`Rates per ${per}`}>
        <LineChart data={rates} accessibilityLayer={false}>
          <CartesianGrid strokeDasharray="3 3" vertical={false} />
          {axis}
          <YAxis unit="%" domain={[0, 100]} />
          <Tooltip formatter={(v) => `${v}%`} />
          <Legend />
          {RATES.map((s) => (
            <Line key={s.key} dataKey={s.key} name={s.name} stroke={s.color} dot={series.length <= MAX_BARS} connectNulls={false} isAnimationActive={false} />
          ))}
        </LineChart>
      </Figure>
    </>
  );
}
