import "@xyflow/react/dist/style.css";
import { edgeFields, type GraphEdge, type Output, outputOf, STEP_LABELS, type StepRun, type Workflow } from "@mailroom/contracts";
import { useComputedColorScheme } from "@mantine/core";
import { applyNodeChanges, Background, type Connection, Controls, type Edge, MarkerType, type NodeChange, ReactFlow, useReactFlow, useStore } from "@xyflow/react";
import { useCallback, useEffect, useMemo, useRef, useState } from "react";
import { NODE_WIDTH, nodeGeometry } from "./geometry";
import type { EditableType } from "./step-config";
import { StepNode, type StepNodeType } from "./StepNode";

export type Selection = { kind: "step" | "edge"; id: string } | null;

const NODE_TYPES = { step: StepNode };

export interface CanvasProps {
  workflow: Workflow;
  /** Drag, connect and delete; false for viewers and for an execution's path. */
  editable: boolean;
  selection: Selection;
  onSelect: (s: Selection) => void;
  /** An execution's step runs (last run per step) and the transitions it took: drawn, the rest dimmed. */
  path?: { steps: Map<string, StepRun>; edges: Set<string> };
  onConnect?: (edge: GraphEdge) => void;
  onMove?: (stepId: string, position: { x: number; y: number }) => void;
  onDelete?: (stepIds: string[], transitionIds: string[]) => void;
  /** A step type dragged from the palette and dropped here, at the flow position of its top-left corner. */
  onDropStep?: (type: EditableType, position: { x: number; y: number }) => void;
}

/** The drag data type of a palette button: a step type. */
export const STEP_DRAG_TYPE = "application/x-mailroom-step";

/**
 * The workflow's graph on a React Flow canvas. The server's graph is the truth: nodes are rebuilt from
 * it whenever it changes, and the canvas only holds positions while a node is dragged (saved on drop).
 */
export function Canvas({ workflow, editable, selection, onSelect, path, onConnect, onMove, onDelete, onDropStep }: CanvasProps) {
  const scheme = useComputedColorScheme("light");
  const flow = useReactFlow();
  const names = useMemo(() => new Map(workflow.steps.map((s) => [s.id, s.name])), [workflow.steps]);
  const selected = useRef<string | null>(null);
  selected.current = selection?.kind === "step" ? selection.id : null;
  const build = (): StepNodeType[] =>
    workflow.steps.map((step) => ({
      id: step.id,
      type: "step",
      position: step.position,
      ...nodeGeometry(step.type, path?.steps.has(step.id) ?? false),
      data: { step, run: path?.steps.get(step.id), dimmed: path ? !path.steps.has(step.id) : false },
      selected: selected.current === step.id,
      deletable: editable && step.type !== "TRIGGER",
      ariaLabel: `${step.name} (${STEP_LABELS[step.type]}${path?.steps.has(step.id) ? `, ${path.steps.get(step.id)!.status}` : ""})`,
    }));
  const [nodes, setNodes] = useState<StepNodeType[]>(build);
  // biome-ignore lint/correctness/useExhaustiveDependencies: rebuilt when the server's graph changes, not on every render
  useEffect(() => setNodes(build()), [workflow.steps, path, editable]);
  // a new selection only flips flags: rebuilding would put a node being dragged back at its saved place
  const selectedId = selected.current;
  useEffect(() => {
    setNodes((ns) => ns.map((n) => (n.selected === (n.id === selectedId) ? n : { ...n, selected: n.id === selectedId })));
  }, [selectedId]);

  const edges = useMemo<Edge[]>(
    () =>
      workflow.transitions.map((t) => {
        const output = outputOf(t);
        const label = output === "next" ? undefined : output;
        const taken = path?.edges.has(t.id);
        return {
          id: t.id,
          source: t.fromStepId,
          target: t.toStepId,
          sourceHandle: output,
          label,
          selected: selection?.kind === "edge" && selection.id === t.id,
          deletable: editable,
          animated: taken,
          markerEnd: { type: MarkerType.ArrowClosed },
          style: taken ? { strokeWidth: 3, stroke: "var(--mantine-color-teal-8)" } : path ? { opacity: 0.4 } : undefined,
          ariaLabel: `${names.get(t.fromStepId)} to ${names.get(t.toStepId)}${label ? ` (${label})` : ""}${taken ? ", taken" : ""}`,
        };
      }),
    [workflow.transitions, names, selection, editable, path],
  );

  // Selection lives with the page (the side panel follows it); the rest of a change applies here.
  const onNodesChange = useCallback(
    (changes: NodeChange<StepNodeType>[]) => {
      for (const c of changes) if (c.type === "select" && c.selected) onSelect({ kind: "step", id: c.id });
      setNodes((ns) => applyNodeChanges(changes.filter((c) => c.type !== "select" && c.type !== "remove"), ns));
    },
    [onSelect],
  );

  const droppable = editable && onDropStep !== undefined;
  const dragOver = (e: React.DragEvent) => {
    if (!droppable || !e.dataTransfer.types.includes(STEP_DRAG_TYPE)) return;
    e.preventDefault();
    e.dataTransfer.dropEffect = "copy";
  };
  const drop = (e: React.DragEvent) => {
    const type = e.dataTransfer.getData(STEP_DRAG_TYPE) as EditableType;
    if (!droppable || !type) return;
    e.preventDefault();
    // the pointer at the middle of the new node's top edge, where its input is
    const at = flow.screenToFlowPosition({ x: e.clientX, y: e.clientY });
    onDropStep(type, { x: Math.round(at.x - NODE_WIDTH / 2), y: Math.round(at.y) });
  };

  const connect = useCallback(
    (c: Connection) => onConnect?.({ fromStepId: c.source, toStepId: c.target, ...edgeFields((c.sourceHandle ?? "next") as Output) }),
    [onConnect],
  );

  return (
    <ReactFlow
      aria-label={path ? "The execution's path on the workflow" : "Workflow graph"}
      nodes={nodes}
      edges={edges}
      nodeTypes={NODE_TYPES}
      colorMode={scheme}
      onNodesChange={onNodesChange}
      onNodeClick={(_, n) => onSelect({ kind: "step", id: n.id })}
      onEdgeClick={(_, e) => onSelect({ kind: "edge", id: e.id })}
      onPaneClick={() => onSelect(null)}
      onConnect={connect}
      onNodeDragStop={(_, n) => onMove?.(n.id, { x: Math.round(n.position.x), y: Math.round(n.position.y) })}
      onDelete={({ nodes: ns, edges: es }) => onDelete?.(ns.map((n) => n.id), es.map((e) => e.id))}
      onDragOver={dragOver}
      onDrop={drop}
      nodesDraggable={editable}
      nodesConnectable={editable}
      deleteKeyCode={editable ? ["Delete", "Backspace"] : null}
      fitView
      fitViewOptions={{ padding: 0.15, maxZoom: 1 }}
      minZoom={0.1}
    >
      <Background />
      <Controls showInteractive={false} />
      <FitOnGrowth />
    </ReactFlow>
  );
}

/** Refits the view when a step is added or removed, so a new step is never off screen. */
function FitOnGrowth() {
  const flow = useReactFlow();
  // the canvas's own count, so the fit sees the new node (not the server's, which is ahead of it)
  const count = useStore((s) => s.nodes.length);
  const [seen, setSeen] = useState(count);
  useEffect(() => {
    if (count === seen) return;
    setSeen(count);
    // after the new node is measured
    requestAnimationFrame(() => void flow.fitView({ padding: 0.15, maxZoom: 1 }));
  }, [count, seen, flow]);
  return null;
}
