import type { StatsPoint } from "@mailroom/contracts";
import { Paper, Title } from "@mantine/core";
import { Bar, BarChart, CartesianGrid, Legend, ResponsiveContainer, Tooltip, XAxis, YAxis } from "recharts";

const SERIES = [
  { key: "sent", name: "Sent", color: "var(--mantine-color-blue-8)" },
  { key: "delivered", name: "Delivered", color: "var(--mantine-color-teal-9)" },
  { key: "opened", name: "Opened", color: "var(--mantine-color-cyan-9)" },
  { key: "clicked", name: "Clicked", color: "var(--mantine-color-indigo-8)" },
  { key: "bounced", name: "Bounced", color: "var(--mantine-color-red-9)" },
] as const;

const day = (at: string) => new Date(at).toLocaleDateString(undefined, { weekday: "short", day: "numeric", timeZone: "UTC" });

/** Emails per day; the numbers above say the same in text, so the picture is a figure with a name. */
export default function DailyChart({ series }: { series: readonly StatsPoint[] }) {
  const data = series.map((p) => ({ ...p, day: day(p.at) }));
  return (
    <Paper withBorder p="md" component="figure" m={0} aria-labelledby="daily-chart-title">
      <Title order={3} id="daily-chart-title" mb="sm">
        Emails per day
      </Title>
      <ResponsiveContainer width="100%" height={280}>
        <BarChart data={data} accessibilityLayer={false}>
          <CartesianGrid strokeDasharray="3 3" vertical={false} />
          <XAxis dataKey="day" />
          <YAxis allowDecimals={false} />
          <Tooltip />
          <Legend />
          {SERIES.map((s) => (
            <Bar key={s.key} dataKey={s.key} name={s.name} fill={s.color} isAnimationActive={false} />
          ))}
        </BarChart>
      </ResponsiveContainer>
    </Paper>
  );
}
