import type { DomainStatus } from "@mailroom/contracts";
import { Badge } from "@mantine/core";

/** Dark shades: Mantine's light yellow badge is 2.7:1, under WCAG AA. */
export function DomainStatusBadge({ status }: { status: DomainStatus }) {
  return status === "VERIFIED" ? (
    <Badge color="teal.9">Verified</Badge>
  ) : (
    <Badge color="gray.8" variant="outline">
      Pending
    </Badge>
  );
}
