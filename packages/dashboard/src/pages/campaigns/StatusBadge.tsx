import type { CampaignStatus } from "@mailroom/contracts";
import { Badge } from "@mantine/core";

// Filled shades dark enough for white text at badge size (WCAG AA), as EmailTable's.
const COLORS: Record<CampaignStatus, string> = { DRAFT: "gray.7", SCHEDULED: "grape.8", SENDING: "blue.8", SENT: "teal.9" };

export function CampaignStatusBadge({ status }: { status: CampaignStatus }) {
  return (
    <Badge color={COLORS[status]} variant="filled">
      {status}
    </Badge>
  );
}
