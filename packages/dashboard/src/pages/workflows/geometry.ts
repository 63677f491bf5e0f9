import { Position, type NodeHandle } from "@xyflow/react";
import { type Output, outputsOf, type StepType } from "@mailroom/contracts";

/**
 * A step node's size and handles, known before it is drawn (StepNode.css holds the same numbers):
 * React Flow then draws nodes and edges in its first pass instead of hiding every node until a
 * ResizeObserver has measured it, which is most of the canvas's render time at 100 steps
 * (bench/dashboard-canvas.mjs).
 */
export const NODE_WIDTH = 220;
const BASE_HEIGHT = 72;
const OUTPUTS_ROW = 20;
const RUN_ROW = 22;
const HANDLE = 14;

/** A source handle's horizontal place: outputs share the bottom edge evenly. */
export const outputLeft = (index: number, count: number) => ((index * 2 + 1) * 100) / (count * 2);

export function nodeGeometry(type: StepType, hasRun: boolean) {
  const outputs = outputsOf(type);
  const height = BASE_HEIGHT + (outputs.length > 1 ? OUTPUTS_ROW : 0) + (hasRun ? RUN_ROW : 0);
  const handles: NodeHandle[] = outputs.map((o: Output, i) => ({
    id: o,
    type: "source",
    position: Position.Bottom,
    x: (outputLeft(i, outputs.length) / 100) * NODE_WIDTH - HANDLE / 2,
    y: height - HANDLE / 2,
    width: HANDLE,
    height: HANDLE,
  }));
  if (type !== "TRIGGER") handles.push({ id: null, type: "target", position: Position.Top, x: NODE_WIDTH / 2 - HANDLE / 2, y: -HANDLE / 2, width: HANDLE, height: HANDLE });
  // `measured` too: React Flow counts a node as initialized (and runs a queued fitView) only once it has one
  return { width: NODE_WIDTH, height, measured: { width: NODE_WIDTH, height }, handles };
}
