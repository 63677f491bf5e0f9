import type { ExecutionStatus, StepRunStatus } from "@mailroom/contracts";
import { Badge } from "@mantine/core";
import { STATUS_COLOR } from "./labels";

/** An execution's or a step run's status, in the colour the canvas draws it. */
export function RunStatusBadge({ status }: { status: ExecutionStatus | StepRunStatus }) {
  return (
    <Badge variant="filled" color={STATUS_COLOR[status]}>
      {status}
    </Badge>
  );
}
