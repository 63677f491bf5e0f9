import "./StepNode.css";
import { outputsOf, STEP_LABELS, type Step, type StepRun } from "@mailroom/contracts";
import { Handle, type Node, type NodeProps, Position } from "@xyflow/react";
import { memo } from "react";
import { outputLeft } from "./geometry";
import { STATUS_COLOR, stepSummary } from "./labels";

export type StepNodeData = { step: Step; run?: StepRun; dimmed?: boolean };
export type StepNodeType = Node<StepNodeData, "step">;

/** Mantine's `blue.8` as its CSS variable. */
const colorVar = (c: string) => `var(--mantine-color-${c.replace(".", "-")})`;

/** One step on the canvas: its type, name and settings, an input on top and one handle per output below. */
export const StepNode = memo(function StepNode({ data, selected }: NodeProps<StepNodeType>) {
  const { step, run } = data;
  const outputs = outputsOf(step.type);
  const runColor = run ? colorVar(STATUS_COLOR[run.status]) : undefined;
  return (
    <div className="wf-node" data-selected={selected || undefined} data-dimmed={data.dimmed || undefined} style={runColor ? { border: `2px solid ${runColor}` } : undefined}>
      {step.type !== "TRIGGER" && <Handle type="target" position={Position.Top} data-testid="input" />}
      <div className="wf-node-type">{STEP_LABELS[step.type]}</div>
      <div className="wf-node-name">{step.name}</div>
      <div className="wf-node-summary">{stepSummary(step)}</div>
      {run && (
        <div className="wf-node-run">
          <span className="wf-node-status" style={{ background: runColor }}>
            {run.status}
          </span>
          {/* the time of day only: the node is one fixed line high here (geometry.ts); the table has the dates */}
          {new Date(run.startedAt).toLocaleTimeString()}
        </div>
      )}
      {outputs.length > 1 && (
        <div className="wf-node-outputs">
          {outputs.map((o) => (
            <span key={o}>{o}</span>
          ))}
        </div>
      )}
      {outputs.map((o, i) => (
        <Handle key={o} id={o} type="source" position={Position.Bottom} style={{ left: `${outputLeft(i, outputs.length)}%` }} data-testid={`output-${o}`} />
      ))}
    </div>
  );
});
