import type { Campaign } from "@mailroom/contracts";
import { Badge, Stack, Text, Title } from "@mantine/core";
import { DataTable } from "../../components/DataTable";
import { formatTime, rate } from "../../lib/format";
import { variantLetter } from "./ab-form";

const METRIC_LABEL = { opened: "open rate", clicked: "click rate" } as const;

/** An A/B campaign's test: each variant's sample and rates, the state of the wait, the winner. */
export function VariantResults({ campaign }: { campaign: Campaign }) {
  const variants = campaign.variants ?? [];
  const test = campaign.abTest!;
  const stats = new Map(campaign.stats.variants.map((s) => [s.index, s]));
  const winner = campaign.winnerVariant;
  return (
    <Stack gap="xs">
      <Title order={4}>A/B test</Title>
      <Text size="sm" data-testid="ab-state">
        {winner !== null
          ? `Variant ${variantLetter(winner)} won on ${METRIC_LABEL[test.metric]} and went to the rest of the audience.`
          : campaign.winnerDueAt
            ? `${test.samplePercent}% of the audience is testing the variants; the winner by ${METRIC_LABEL[test.metric]} is picked at ${formatTime(campaign.winnerDueAt)}.`
            : `Sending the variants to ${test.samplePercent}% of the audience; then a ${test.waitMinutes}-minute wait.`}
      </Text>
      <DataTable
        label="Results per variant"
        // a sent campaign's variants never change: the index is their identity
        rows={variants.map((v, i) => ({ index: i, subject: v.subject, stats: stats.get(i) }))}
        rowKey={(v) => v.index}
        minWidth={560}
        columns={[
          {
            header: "Variant",
            cell: (v) => (
              <>
                {variantLetter(v.index)}{" "}
                {winner === v.index && (
                  <Badge color="teal.9" variant="filled" ml={4}>
                    Winner
                  </Badge>
                )}
              </>
            ),
          },
          { header: "Subject", style: { wordBreak: "break-word" }, cell: (v) => v.subject },
          { header: "Recipients", cell: (v) => (v.stats?.recipients ?? 0).toLocaleString() },
          { header: "Sent", cell: (v) => (v.stats?.sent ?? 0).toLocaleString() },
          { header: "Open rate", cell: (v) => (v.stats ? rate(v.stats.opened, v.stats.sent) : "—") },
          { header: "Click rate", cell: (v) => (v.stats ? rate(v.stats.clicked, v.stats.sent) : "—") },
        ]}
      />
      <Text size="xs" c="dimmed">
        Rates are over each variant's sample (its emails sent); the send to the rest counts in the campaign's totals above.
      </Text>
    </Stack>
  );
}
