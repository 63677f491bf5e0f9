import type { Campaign, CheckName, CheckStatus, PreSendCheck } from "@mailroom/contracts";
import { Badge, Button, Group, Paper, Stack, Text, Title } from "@mantine/core";
import { useCampaignChecks } from "../../api/campaigns";
import { QueryStatus } from "../../components/QueryStatus";

/** What a person calls each check (contracts CHECK_NAMES); the API's detail says the rest. */
export const CHECK_LABELS: Record<CheckName, string> = {
  spf: "SPF",
  dkim: "DKIM",
  dmarc: "DMARC",
  one_click_unsubscribe: "One-click unsubscribe",
  unsubscribe_link: "Unsubscribe link",
  html_size: "HTML size",
  image_alt: "Image alt text",
  private_links: "Private links",
  spam_score: "Spam score",
  render: "Rendering",
};

// A glyph beside the word, so the status never rests on colour alone; shades that keep AA contrast.
const LOOK: Record<CheckStatus, { glyph: string; word: string; color: string }> = {
  pass: { glyph: "✓", word: "Pass", color: "teal.9" },
  warn: { glyph: "!", word: "Warning", color: "yellow.4" },
  fail: { glyph: "✕", word: "Fail", color: "red.9" },
};

/** How many checks fail, for the send confirmation (0 while they are unknown). */
export const failing = (checks: PreSendCheck[] | undefined) => (checks ?? []).filter((c) => c.status === "fail").length;

/**
 * The pre-send checks of the saved campaign (decisions.md §18): the sender domain's DNS, the
 * unsubscribe paths, the body's size, images and links, and the spam score when the platform has one.
 */
export function ChecksPanel({ campaign, dirty }: { campaign: Campaign; dirty: boolean }) {
  const checks = useCampaignChecks(campaign.id);
  return (
    <Paper withBorder p="md">
      <Stack gap="sm">
        <Group justify="space-between">
          <Title order={3}>Pre-send checks</Title>
          <Button variant="default" size="xs" onClick={() => checks.refetch()} loading={checks.isFetching}>
            Check again
          </Button>
        </Group>
        {dirty && <Text size="sm">The checks are of the saved campaign: save your changes to check them.</Text>}
        <QueryStatus query={checks} what="the checks">
          {() => (
            <Stack gap="xs" component="ul" aria-label="Pre-send checks" style={{ listStyle: "none", padding: 0, margin: 0 }}>
              {checks.data!.map((c) => (
                <CheckRow key={c.check} check={c} />
              ))}
            </Stack>
          )}
        </QueryStatus>
      </Stack>
    </Paper>
  );
}

function CheckRow({ check }: { check: PreSendCheck }) {
  const look = LOOK[check.status];
  return (
    <Group component="li" gap="sm" wrap="nowrap" align="flex-start" data-check={check.check} data-status={check.status}>
      <Badge color={look.color} autoContrast variant="filled" w={96} style={{ flexShrink: 0 }} leftSection={<span aria-hidden>{look.glyph}</span>}>
        {look.word}
      </Badge>
      {/* a detail names DNS records and hosts with no space to break at: they wrap anywhere on a phone */}
      <div style={{ minWidth: 0 }}>
        <Text size="sm" fw={600}>
          {CHECK_LABELS[check.check]}
        </Text>
        <Text size="sm" style={{ overflowWrap: "anywhere" }}>
          {check.detail}
        </Text>
      </div>
    </Group>
  );
}
