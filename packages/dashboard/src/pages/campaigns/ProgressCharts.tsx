import type { StatsPoint } from "@mailroom/contracts";
import { Paper, SimpleGrid, Text, Title } from "@mantine/core";
import { Bar, BarChart, CartesianGrid, Legend, Line, LineChart, ResponsiveContainer, Tooltip, XAxis, YAxis } from "recharts";
import type { Sample } from "./progress-samples";

const COLORS = { sent: "var(--mantine-color-blue-8)", delivered: "var(--mantine-color-teal-9)", failed: "var(--mantine-color-red-9)", opened: "var(--mantine-color-cyan-9)", clicked: "var(--mantine-color-indigo-8)" };
const clock = (at: number) => new Date(at).toLocaleTimeString(undefined, { hour: "2-digit", minute: "2-digit", second: "2-digit" });
const hour = (at: string) => new Date(at).toLocaleTimeString(undefined, { hour: "2-digit", minute: "2-digit" });

/** The counts above, drawn: as this page watched them move, and per hour as the stats keep them. */
export default function ProgressCharts({ samples, hourly }: { samples: readonly Sample[]; hourly: readonly StatsPoint[] }) {
  return (
    <SimpleGrid cols={{ base: 1, lg: 2 }}>
      <Paper withBorder p="md" component="figure" m={0} aria-labelledby="live-chart-title">
        <Title order={4} id="live-chart-title" mb="sm">
          While watching
        </Title>
        {samples.length < 2 ? (
          <Text size="sm" c="dimmed">
            The counts are drawn here as they move while this page is open.
          </Text>
        ) : (
          <ResponsiveContainer width="100%" height={220}>
            <LineChart data={samples.map((s) => ({ ...s, time: clock(s.at) }))} accessibilityLayer={false}>
              <CartesianGrid strokeDasharray="3 3" vertical={false} />
              <XAxis dataKey="time" />
              <YAxis allowDecimals={false} />
              <Tooltip />
              <Legend />
              {(["sent", "delivered", "failed"] as const).map((k) => (
                <Line key={k} dataKey={k} name={k[0]!.toUpperCase() + k.slice(1)} stroke={COLORS[k]} dot={false} isAnimationActive={false} />
              ))}
            </LineChart>
          </ResponsiveContainer>
        )}
      </Paper>
      <Paper withBorder p="md" component="figure" m={0} aria-labelledby="hourly-chart-title">
        <Title order={4} id="hourly-chart-title" mb="sm">
          Per hour
        </Title>
        <ResponsiveContainer width="100%" height={220}>
          <BarChart data={hourly.map((p) => ({ ...p, hour: hour(p.at) }))} accessibilityLayer={false}>
            <CartesianGrid strokeDasharray="3 3" vertical={false} />
            <XAxis dataKey="hour" />
            <YAxis allowDecimals={false} />
            <Tooltip />
            <Legend />
            {(["sent", "delivered", "opened", "clicked", "failed"] as const).map((k) => (
              <Bar key={k} dataKey={k} name={k[0]!.toUpperCase() + k.slice(1)} fill={COLORS[k]} isAnimationActive={false} />
            ))}
          </BarChart>
        </ResponsiveContainer>
      </Paper>
    </SimpleGrid>
  );
}
