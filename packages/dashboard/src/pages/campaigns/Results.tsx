import { type Campaign, type CampaignStats, EmailStatus } from "@mailroom/contracts";
import { Anchor, Group, Paper, Select, SimpleGrid, Stack, Table, Text, Title } from "@mantine/core";
import { useState } from "react";
import { useCampaignLinks } from "../../api/campaigns";
import { useEmails } from "../../api/emails";
import { EmailTable } from "../../components/EmailTable";
import { Pager } from "../../components/Pager";
import { Empty, LoadError, Loading } from "../../components/QueryState";
import { QueryStatus } from "../../components/QueryStatus";
import { useCursorTrail } from "../../lib/cursors";
import { rate } from "../../lib/format";
import { STATUS_OPTIONS } from "../emails/filters";
import { VariantResults } from "./VariantResults";

/** The counters of `stats` (every key but the per-variant list). */
export type StatCounter = Exclude<keyof CampaignStats, "variants">;

export const RATES: { key: StatCounter; label: string }[] = [
  { key: "delivered", label: "Delivery rate" },
  { key: "opened", label: "Open rate" },
  { key: "clicked", label: "Click rate" },
  { key: "bounced", label: "Bounce rate" },
  { key: "complained", label: "Complaint rate" },
  { key: "unsubscribed", label: "Unsubscribe rate" },
];

/** How the campaign did: its rates over the emails sent, its clicks per link and its recipients. */
export function Results({ campaign }: { campaign: Campaign }) {
  const s = campaign.stats;
  return (
    <Stack>
      <Title order={3}>Results</Title>
      <SimpleGrid cols={{ base: 2, sm: 3, lg: 6 }}>
        {RATES.map((r) => (
          <Paper key={r.key} withBorder p="sm">
            <Text size="sm" c="dimmed">
              {r.label}
            </Text>
            <Text fz={22} fw={700}>
              {rate(s[r.key], s.sent)}
            </Text>
            <Text size="xs" c="dimmed">
              {s[r.key].toLocaleString()} of {s.sent.toLocaleString()} sent
            </Text>
          </Paper>
        ))}
      </SimpleGrid>
      {campaign.variants && <VariantResults campaign={campaign} />}
      <Links campaignId={campaign.id} />
      <Recipients campaignId={campaign.id} />
    </Stack>
  );
}

function Links({ campaignId }: { campaignId: string }) {
  // Clicks keep coming after the send: read again every few seconds while the page is open.
  const links = useCampaignLinks(campaignId, 3000);
  return (
    <Stack gap="xs">
      <Title order={4}>Clicks per link</Title>
      <QueryStatus query={links} what="the links">
        {() =>
          links.data!.data.length === 0 ? (
            <Empty>No link was clicked yet.</Empty>
          ) : (
            <Table.ScrollContainer minWidth={480}>
              <Table striped aria-label="Clicks per link">
                <Table.Thead>
                  <Table.Tr>
                    <Table.Th>Link</Table.Th>
                    <Table.Th>Clicks</Table.Th>
                    <Table.Th>Unique clicks</Table.Th>
                  </Table.Tr>
                </Table.Thead>
                <Table.Tbody>
                  {links.data!.data.map((l) => (
                    <Table.Tr key={l.url}>
                      <Table.Td style={{ wordBreak: "break-all" }}>
                        <Anchor href={l.url} target="_blank" rel="noopener noreferrer">
                          {l.url}
                        </Anchor>
                      </Table.Td>
                      <Table.Td>{l.clicks.toLocaleString()}</Table.Td>
                      <Table.Td>{l.uniqueClicks.toLocaleString()}</Table.Td>
                    </Table.Tr>
                  ))}
                </Table.Tbody>
              </Table>
            </Table.ScrollContainer>
          )
        }
      </QueryStatus>
    </Stack>
  );
}

function Recipients({ campaignId }: { campaignId: string }) {
  const [status, setStatus] = useState<EmailStatus | undefined>(undefined);
  const trail = useCursorTrail(status ?? "");
  const emails = useEmails({ campaignId, status, cursor: trail.cursor });
  return (
    <Stack gap="xs">
      <Group justify="space-between" align="flex-end">
        <Title order={4}>Recipients</Title>
        <Select
          label="Recipient status"
          placeholder="Any status"
          data={STATUS_OPTIONS}
          value={status ?? null}
          onChange={(v) => setStatus(EmailStatus.safeParse(v ?? undefined).data)}
          clearable
          w={200}
        />
      </Group>
      {emails.isPending ? (
        <Loading what="the recipients" />
      ) : emails.isError ? (
        <LoadError error={emails.error} onRetry={() => emails.refetch()} />
      ) : emails.data.data.length === 0 ? (
        <Empty>{status ? "No recipient's email has this status." : "No email yet."}</Empty>
      ) : (
        <>
          <EmailTable emails={emails.data.data} caption={status ? `The campaign's emails with status ${status}, newest first` : "The campaign's emails, newest first"} />
          <Pager
            label="Recipients"
            page={trail.page}
            hasPrevious={trail.hasPrevious}
            hasMore={emails.data.hasMore && emails.data.cursor !== null}
            onPrevious={trail.previous}
            onNext={() => emails.data.cursor && trail.next(emails.data.cursor)}
          />
        </>
      )}
    </Stack>
  );
}
