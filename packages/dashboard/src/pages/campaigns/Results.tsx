import { type Campaign, type CampaignStats, EmailStatus } from "@mailroom/contracts";
import { Anchor, Group, Paper, Select, SimpleGrid, Stack, Text, Title } from "@mantine/core";
import { useEffect, useRef, useState } from "react";
import { useCampaignLinks } from "../../api/campaigns";
import { useEmails } from "../../api/emails";
import { QueryTable } from "../../components/DataTable";
import { EmailTable } from "../../components/EmailTable";
import { useCursorTrail } from "../../lib/cursors";
import { rate } from "../../lib/format";
import { STATUS_OPTIONS } from "../emails/filters";
import { VariantResults } from "./VariantResults";

/** The counters of `stats` (every key but the per-variant list and the per-provider holds). */
export type StatCounter = Exclude<keyof CampaignStats, "variants" | "throttled">;

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
      {s.throttled && (
        <Text size="sm">
          Waiting for the next day under the sender domain's warm-up cap:{" "}
          {Object.entries(s.throttled)
            .map(([provider, n]) => `${provider} ${n.toLocaleString()}`)
            .join(", ")}
        </Text>
      )}
      {campaign.variants && <VariantResults campaign={campaign} />}
      <Links campaignId={campaign.id} />
      <Recipients campaignId={campaign.id} sending={campaign.status === "SENDING"} />
    </Stack>
  );
}

function Links({ campaignId }: { campaignId: string }) {
  // Clicks keep coming after the send: read again every few seconds while the page is open.
  const links = useCampaignLinks(campaignId, 3000);
  return (
    <Stack gap="xs">
      <Title order={4}>Clicks per link</Title>
      <QueryTable
        label="Clicks per link"
        what="the links"
        query={links}
        rowKey={(l) => l.url}
        empty="No link was clicked yet."
        minWidth={480}
        columns={[
          {
            header: "Link",
            style: { wordBreak: "break-all" },
            cell: (l) => (
              <Anchor href={l.url} target="_blank" rel="noopener noreferrer">
                {l.url}
              </Anchor>
            ),
          },
          { header: "Clicks", cell: (l) => l.clicks.toLocaleString() },
          { header: "Unique clicks", cell: (l) => l.uniqueClicks.toLocaleString() },
        ]}
      />
    </Stack>
  );
}

/** How often a sending campaign's recipients are read again: its emails are still being made. */
const SENDING_POLL_MS = 3000;

function Recipients({ campaignId, sending }: { campaignId: string; sending: boolean }) {
  const [status, setStatus] = useState<EmailStatus | undefined>(undefined);
  const trail = useCursorTrail(status ?? "");
  const emails = useEmails({ campaignId, status, cursor: trail.cursor }, undefined, sending ? SENDING_POLL_MS : false);
  // once it has ended, read once more: the last poll may have come before its last emails
  const { refetch } = emails;
  const wasSending = useRef(sending);
  useEffect(() => {
    if (wasSending.current && !sending) void refetch();
    wasSending.current = sending;
  }, [sending, refetch]);
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
      <EmailTable
        label="Recipients"
        what="the recipients"
        caption={status ? `The campaign's emails with status ${status}, newest first` : "The campaign's emails, newest first"}
        query={emails}
        trail={trail}
        empty={status ? "No recipient's email has this status." : "No email yet."}
      />
    </Stack>
  );
}
