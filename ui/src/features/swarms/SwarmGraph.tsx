// The swarm as a graph (React Flow): the input, the members and the output,
// with the edges the strategy implies. The graph is the member list: in the
// builder a member's node is dragged to place it, moved earlier or later,
// made the orchestrator or taken out. During a run it lights the member that
// is working and runs a dot along the hand-off happening now; after the
// run, members that ran show how they ended. A swarm that cannot run is
// drawn greyed and dashed — never with the arrows of a run.

import { useEffect, useMemo, useState } from "react";
import { useTranslation } from "react-i18next";
import {
  Background,
  BaseEdge,
  Controls,
  Handle,
  MarkerType,
  Position,
  ReactFlow,
  getBezierPath,
  type Edge,
  type EdgeProps,
  type Node,
  type NodeChange,
  type NodeProps,
  applyNodeChanges,
  useReactFlow,
  useStore,
} from "@xyflow/react";
import "@xyflow/react/dist/base.css";
import { ArrowDown, ArrowUp, Check, Crown, LogIn, LogOut, TriangleAlert, X } from "lucide-react";

import type { Strategy } from "../../api";
import { INPUT_NODE, OUTPUT_NODE, edgesFor, positionOf, type GraphEdge, type Point, type SwarmDraft } from "./draft";
import type { EdgeRunState, LiveGraph, NodeRunState } from "./liveGraph";

type AgentNodeData = {
  agentId: string;
  name: string;
  /** The line under the name: what the agent does, or how it is doing in the run. */
  detail: string;
  order: number;
  count: number;
  orchestrator: boolean;
  strategy: Strategy;
  state: NodeRunState | null;
  missing: boolean;
  editable: boolean;
  actions: NodeActions;
  labels: NodeLabels;
};

interface NodeActions {
  onRemove(agentId: string): void;
  onToggleOrchestrator(agentId: string): void;
  onReorder(agentId: string, by: -1 | 1): void;
}

interface NodeLabels {
  remove: string;
  lead: string;
  makeLead: string;
  earlier: string;
  later: string;
}

type EndpointNodeData = { label: string; kind: "input" | "output"; reached: boolean };
type AgentNode = Node<AgentNodeData, "agent">;
type EndpointNode = Node<EndpointNodeData, "endpoint">;
type SwarmEdgeData = { kind: GraphEdge["kind"]; state: EdgeRunState };
type SwarmEdge = Edge<SwarmEdgeData, "swarm">;

function AgentNodeView({ data }: NodeProps<AgentNode>) {
  const { actions, labels } = data;
  const classes = [
    "agent-node",
    data.orchestrator ? "is-lead" : "",
    data.state && data.state !== "idle" ? `run-${data.state}` : "",
    data.missing ? "is-missing" : "",
  ]
    .filter(Boolean)
    .join(" ");
  const ordered = data.strategy !== "hierarchical";
  return (
    <div className={classes} data-testid={`node-${data.agentId}`} data-state={data.state ?? "idle"} title={`${data.name} · ${data.agentId}`}>
      <Handle type="target" position={Position.Top} />
      <div className="agent-node-head">
        <span className="agent-node-order" aria-hidden="true">
          {data.orchestrator ? <Crown size={12} /> : data.state === "done" ? <Check size={12} /> : data.state === "failed" ? <TriangleAlert size={11} /> : data.order}
        </span>
        <span className="agent-node-name">{data.name}</span>
        {data.editable && (
          <button
            type="button"
            className="agent-node-btn nodrag"
            aria-label={labels.remove}
            title={labels.remove}
            onClick={() => actions.onRemove(data.agentId)}
            data-testid={`remove-${data.agentId}`}
          >
            <X size={12} />
          </button>
        )}
      </div>
      {data.detail && (
        <div className="agent-node-sub" data-testid={`node-detail-${data.agentId}`}>
          {data.detail}
        </div>
      )}
      {data.editable && (data.strategy === "hierarchical" || data.count > 1) && (
        <div className="agent-node-tools">
          {data.strategy === "hierarchical" && (
            <button
              type="button"
              className={data.orchestrator ? "agent-node-lead active nodrag" : "agent-node-lead nodrag"}
              aria-pressed={data.orchestrator}
              onClick={() => actions.onToggleOrchestrator(data.agentId)}
              data-testid={`lead-${data.agentId}`}
            >
              <Crown size={11} /> {data.orchestrator ? labels.lead : labels.makeLead}
            </button>
          )}
          {ordered && (
            <>
              <button
                type="button"
                className="agent-node-btn nodrag"
                aria-label={labels.earlier}
                title={labels.earlier}
                disabled={data.order === 1}
                onClick={() => actions.onReorder(data.agentId, -1)}
                data-testid={`up-${data.agentId}`}
              >
                <ArrowUp size={12} />
              </button>
              <button
                type="button"
                className="agent-node-btn nodrag"
                aria-label={labels.later}
                title={labels.later}
                disabled={data.order === data.count}
                onClick={() => actions.onReorder(data.agentId, 1)}
                data-testid={`down-${data.agentId}`}
              >
                <ArrowDown size={12} />
              </button>
            </>
          )}
        </div>
      )}
      <Handle type="source" position={Position.Bottom} />
    </div>
  );
}

function EndpointNodeView({ data }: NodeProps<EndpointNode>) {
  return (
    <div className={data.reached ? `endpoint-node endpoint-${data.kind} is-reached` : `endpoint-node endpoint-${data.kind}`} data-testid={`endpoint-${data.kind}`}>
      {data.kind === "output" && <Handle type="target" position={Position.Top} />}
      {data.kind === "input" ? <LogIn size={13} /> : <LogOut size={13} />}
      <span>{data.label}</span>
      {data.kind === "input" && <Handle type="source" position={Position.Bottom} />}
    </div>
  );
}

/** An edge that, while its hand-off is happening, carries a moving dot. */
function SwarmEdgeView({ id, sourceX, sourceY, targetX, targetY, sourcePosition, targetPosition, markerEnd, data }: EdgeProps<SwarmEdge>) {
  const [path] = getBezierPath({ sourceX, sourceY, targetX, targetY, sourcePosition, targetPosition });
  return (
    <>
      <BaseEdge id={id} path={path} markerEnd={markerEnd} />
      {data?.state === "active" && (
        <circle r={4.5} className="edge-dot">
          <animateMotion dur="1.1s" repeatCount="indefinite" path={path} />
        </circle>
      )}
    </>
  );
}

const NODE_TYPES = { agent: AgentNodeView, endpoint: EndpointNodeView };
const EDGE_TYPES = { swarm: SwarmEdgeView };

/** Re-frames the graph when members come or go, the strategy changes, or
 * its pane changes size (the Run tab's column narrows as the run panel fills). */
function FitWhen({ signature, padding, minZoom }: { signature: string; padding: number; minZoom?: number }) {
  const flow = useReactFlow();
  const width = useStore((s) => s.width);
  const height = useStore((s) => s.height);
  useEffect(() => {
    const timer = window.setTimeout(() => void flow.fitView({ padding, maxZoom: 1.1, minZoom, duration: 180 }), 30);
    return () => window.clearTimeout(timer);
  }, [flow, signature, padding, minZoom, width, height]);
  return null;
}

// Defaults that keep their identity: the nodes are derived from the props.
const NO_ACTIONS: NodeActions = { onRemove: () => {}, onToggleOrchestrator: () => {}, onReorder: () => {} };
const NO_DESCRIPTIONS: Record<string, string> = {};

interface SwarmGraphProps {
  draft: SwarmDraft;
  names: Record<string, string>;
  /** What each agent does, shown under its name in the builder. */
  descriptions?: Record<string, string>;
  /** The run's state of the graph; absent in the builder. */
  live?: LiveGraph | null;
  /** False when the swarm as drawn cannot run: edges greyed and dashed. */
  runnable: boolean;
  /** The builder's graph: nodes move, and carry their actions. */
  editable?: boolean;
  actions?: NodeActions;
  onMove?(agentId: string, to: Point): void;
}

export function SwarmGraph({ draft, names, descriptions = NO_DESCRIPTIONS, live = null, runnable, editable = false, actions = NO_ACTIONS, onMove }: SwarmGraphProps) {
  const { t } = useTranslation();
  // The Run tab's graph sits in a narrower column: frame it tighter.
  const padding = editable ? 0.12 : 0.08;
  const labels: NodeLabels = useMemo(
    () => ({
      remove: t("swarms.graph.remove"),
      lead: t("swarms.graph.lead"),
      makeLead: t("swarms.graph.makeLead"),
      earlier: t("swarms.moveUp"),
      later: t("swarms.moveDown"),
    }),
    [t],
  );

  const derived = useMemo(() => {
    if (draft.members.length === 0) return [];
    const points = draft.members.map((m) => positionOf(draft, m.agentId));
    const xs = points.map((p) => p.x);
    const ys = points.map((p) => p.y);
    const centre = (Math.min(...xs) + Math.max(...xs)) / 2 + 40;
    const ran = live ? Object.values(live.nodes).some((s) => s !== "idle") : false;
    const reachedOutput = live ? Object.entries(live.edges).some(([id, s]) => id.endsWith(`->${OUTPUT_NODE}`) && s === "done") : false;
    const endpoints: EndpointNode[] = [
      {
        id: INPUT_NODE,
        type: "endpoint",
        position: { x: centre, y: Math.min(...ys) - 110 },
        draggable: false,
        selectable: false,
        data: { label: t("swarms.graph.input"), kind: "input", reached: ran },
      },
      {
        id: OUTPUT_NODE,
        type: "endpoint",
        position: { x: centre, y: Math.max(...ys) + 150 },
        draggable: false,
        selectable: false,
        data: { label: t("swarms.graph.output"), kind: "output", reached: reachedOutput },
      },
    ];
    const members: AgentNode[] = draft.members.map((m, i) => {
      // Until the agents have loaded, no member is said to be missing.
      const missing = Object.keys(names).length > 0 && !(m.agentId in names);
      const state = live ? (live.nodes[m.agentId] ?? "idle") : null;
      const detail = missing
        ? t("swarms.graph.missing")
        : state
          ? t(`swarms.graph.state.${state === "idle" && !live?.running ? "skipped" : state}`)
          : (descriptions[m.agentId] ?? "");
      return {
        id: m.agentId,
        type: "agent",
        position: points[i] ?? { x: 0, y: 0 },
        draggable: editable,
        data: {
          agentId: m.agentId,
          name: names[m.agentId] ?? m.agentId,
          detail,
          order: i + 1,
          count: draft.members.length,
          orchestrator: m.role === "orchestrator",
          strategy: draft.strategy,
          state,
          missing,
          editable,
          actions,
          labels,
        },
      };
    });
    return [...endpoints, ...members];
  }, [draft, names, descriptions, live, editable, actions, labels, t]);

  const edges: SwarmEdge[] = useMemo(
    () =>
      edgesFor(draft, runnable).map((e) => {
        const state = live?.edges[e.id] ?? "idle";
        return {
          id: e.id,
          type: "swarm",
          source: e.source,
          target: e.target,
          animated: state === "active",
          className: `edge-${e.kind} edge-run-${state}`,
          data: { kind: e.kind, state },
          markerEnd: e.kind === "unrunnable" ? undefined : { type: MarkerType.ArrowClosed, width: 16, height: 16 },
        };
      }),
    [draft, runnable, live],
  );

  // React Flow keeps what it measured on the node objects: hold them in
  // state, apply its changes, and merge in what the draft says.
  const [nodes, setNodes] = useState<Node[]>(derived);
  const [synced, setSynced] = useState(derived);
  if (synced !== derived) {
    setSynced(derived);
    setNodes(
      derived.map((node) => {
        const known = nodes.find((c) => c.id === node.id);
        return known ? { ...known, ...node, measured: known.measured } : node;
      }),
    );
  }

  const onNodesChange = (changes: NodeChange[]) => {
    const next = applyNodeChanges(changes, nodes);
    setNodes(next);
    if (!onMove) return;
    for (const change of changes) {
      // The draft takes the place where a drag ends.
      if (change.type !== "position" || change.dragging !== false || change.id.startsWith("__")) continue;
      const at = change.position ?? next.find((n) => n.id === change.id)?.position;
      if (at) onMove(change.id, { x: Math.round(at.x), y: Math.round(at.y) });
    }
  };

  // A running graph keeps its text readable and pans rather than shrinking it.
  const liveZoom = live ? 1 : undefined;
  return (
    <ReactFlow
      nodes={nodes}
      edges={edges}
      nodeTypes={NODE_TYPES}
      edgeTypes={EDGE_TYPES}
      onNodesChange={onNodesChange}
      nodesConnectable={false}
      nodesDraggable={editable}
      edgesFocusable={false}
      fitView
      fitViewOptions={{ padding, maxZoom: 1.1, minZoom: liveZoom }}
      minZoom={0.3}
      maxZoom={1.6}
      proOptions={{ hideAttribution: true }}
      deleteKeyCode={null}
    >
      <FitWhen signature={`${draft.strategy}:${draft.members.map((m) => m.agentId).join(",")}`} padding={padding} minZoom={liveZoom} />
      <Background gap={20} size={1} />
      <Controls showInteractive={false} />
    </ReactFlow>
  );
}
