import type { Campaign } from "@mailroom/contracts";
import { Badge, Stack, Table, Text, Title } from "@mantine/core";
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
      <Table.ScrollContainer minWidth={560}>
        <Table striped aria-label="Results per variant">
          <Table.Thead>
            <Table.Tr>
              <Table.Th>Variant</Table.Th>
              <Table.Th>Subject</Table.Th>
              <Table.Th>Recipients</Table.Th>
              <Table.Th>Sent</Table.Th>
              <Table.Th>Open rate</Table.Th>
              <Table.Th>Click rate</Table.Th>
            </Table.Tr>
          </Table.Thead>
          <Table.Tbody>
            {variants.map((v, i) => {
              const s = stats.get(i);
              return (
                // biome-ignore lint/suspicious/noArrayIndexKey: a sent campaign's variants never change; the index is their identity
                <Table.Tr key={i}>
                  <Table.Td>
                    {variantLetter(i)}{" "}
                    {winner === i && (
                      <Badge color="teal.9" variant="filled" ml={4}>
                        Winner
                      </Badge>
                    )}
                  </Table.Td>
                  <Table.Td style={{ wordBreak: "break-word" }}>{v.subject}</Table.Td>
                  <Table.Td>{(s?.recipients ?? 0).toLocaleString()}</Table.Td>
                  <Table.Td>{(s?.sent ?? 0).toLocaleString()}</Table.Td>
                  <Table.Td>{s ? rate(s.opened, s.sent) : "—"}</Table.Td>
                  <Table.Td>{s ? rate(s.clicked, s.sent) : "—"}</Table.Td>
                </Table.Tr>
              );
            })}
          </Table.Tbody>
        </Table>
      </Table.ScrollContainer>
      <Text size="xs" c="dimmed">
        Rates are over each variant's sample (its emails sent); the send to the rest counts in the campaign's totals above.
      </Text>
    </Stack>
  );
}
