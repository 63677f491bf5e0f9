import type { Campaign, CampaignStatus } from "@mailroom/contracts";
import { Anchor, Stack, Text, } from "@mantine/core";
import { Link, useParams } from "react-router";
import { useCampaign } from "../../api/campaigns";
import { useTopics } from "../../api/topics";
import { QueryStatus } from "../../components/QueryStatus";
import { Composer } from "./Composer";
import { Progress } from "./Progress";
import { Results } from "./Results";
import { ScheduledView } from "./ScheduledView";
import { CampaignStatusBadge } from "./StatusBadge";
import { PageHeader } from "../../components/PageHeader";

/** How often the campaign is read again: each second while it is about to start or sending, then slower as opens and clicks come in. */
const POLL: Record<CampaignStatus, number | false> = { DRAFT: false, SCHEDULED: 1000, SENDING: 1000, SENT: 5000 };

/** `/campaigns/<id>`: the composer for a draft, the schedule, the live progress, the results. */
export function CampaignPage() {
  const id = useParams().id!;
  const campaign = useCampaign(id, (q) => POLL[q.state.data?.status ?? "DRAFT"]);
  return <QueryStatus query={campaign} what="the campaign">{() => <ByStatus campaign={campaign.data!} />}</QueryStatus>;
}

function ByStatus({ campaign }: { campaign: Campaign }) {
  if (campaign.status === "DRAFT") return <Composer campaign={campaign} />;
  return (
    <Stack>
      <PageHeader
        title={campaign.name}
        badge={<CampaignStatusBadge status={campaign.status} />}
        description={`From ${campaign.fromName ? `${campaign.fromName} <${campaign.from}>` : campaign.from} · Subject: ${campaign.subject}`}
        actions={
          <Anchor component={Link} to=".." relative="path">
            All campaigns
          </Anchor>
        }
      />
      {campaign.topicId && <TopicNote topicId={campaign.topicId} />}
      {campaign.status === "SCHEDULED" && <ScheduledView campaign={campaign} />}
      {(campaign.status === "SENDING" || campaign.status === "SENT") && (
        <>
          <Progress campaign={campaign} />
          <Results campaign={campaign} />
        </>
      )}
    </Stack>
  );
}

/** A topic campaign's topic: who it went to (its opted-in contacts) and what its unsubscribe link leaves. */
function TopicNote({ topicId }: { topicId: string }) {
  const topics = useTopics();
  const topic = topics.data?.find((t) => t.id === topicId);
  const name = topic ? topic.name : topics.isPending ? "…" : "a deleted topic";
  return (
    <Text size="sm" data-testid="campaign-topic">
      Topic: {name} (only contacts opted into it receive it; its unsubscribe link leaves that topic only)
    </Text>
  );
}
