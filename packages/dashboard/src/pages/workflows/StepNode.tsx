import type { Step, StepRun } from "@mailroom/contracts";
import { Badge, Group, Paper, Text } from "@mantine/core";
import { Handle, type Node, type NodeProps, Position } from "@xyflow/react";
import { memo } from "react";
import { formatTime } from "../../lib/format";
import { outputsOf } from "./graph";
import { STATUS_COLOR, STEP_LABEL, stepSummary } from "./labels";

export type StepNodeData = { step: Step; run?: StepRun; dimmed?: boolean; templateName?: string };
export type StepNodeType = Node<StepNodeData, "step">;

export const NODE_WIDTH = 220;
// Larger than React Flow's 6 px default: a handle is a target for a mouse drag.
const HANDLE_STYLE = { width: 14, height: 14 };

/** One step on the canvas: its type, name and settings, an input on top and one handle per output below. */
export const StepNode = memo(function StepNode({ data, selected }: NodeProps<StepNodeType>) {
  const { step, run } = data;
  const outputs = outputsOf(step.type);
  const border = run ? `var(--mantine-color-${STATUS_COLOR[run.status].replace(".", "-")})` : selected ? "var(--mantine-color-blue-8)" : undefined;
  return (
    <Paper withBorder shadow={selected ? "md" : "xs"} p="xs" w={NODE_WIDTH} style={{ borderColor: border, borderWidth: run || selected ? 2 : 1, opacity: data.dimmed ? 0.55 : 1 }}>
      {step.type !== "TRIGGER" && <Handle type="target" position={Position.Top} style={HANDLE_STYLE} data-testid="input" />}
      <Text size="xs" c="dimmed">
        {STEP_LABEL[step.type]}
      </Text>
      <Text size="sm" fw={600} truncate>
        {step.name}
      </Text>
      <Text size="xs" truncate>
        {data.templateName ?? stepSummary(step)}
      </Text>
      {run && (
        <Group gap={4} mt={4} wrap="nowrap">
          <Badge size="xs" variant="filled" color={STATUS_COLOR[run.status]}>
            {run.status}
          </Badge>
          <Text size="xs">{formatTime(run.startedAt)}</Text>
        </Group>
      )}
      {outputs.length > 1 && (
        <Group justify="space-around" mt={4}>
          {outputs.map((o) => (
            <Text key={o} size="xs" c="dimmed">
              {o}
            </Text>
          ))}
        </Group>
      )}
      {outputs.map((o, i) => (
        <Handle key={o} id={o} type="source" position={Position.Bottom} style={{ ...HANDLE_STYLE, left: `${((i * 2 + 1) * 100) / (outputs.length * 2)}%` }} data-testid={`output-${o}`} />
      ))}
    </Paper>
  );
});
