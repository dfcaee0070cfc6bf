// The swarm as a graph (React Flow): the input, the members and the output,
// with the edges the strategy implies. Members are dragged to place them;
// a member's node can be made the orchestrator or taken out. During a run
// each node shows how its agent is doing.

import { useEffect, useMemo, useState } from "react";
import { useTranslation } from "react-i18next";
import {
  Background,
  Controls,
  Handle,
  MarkerType,
  Position,
  ReactFlow,
  type Edge,
  type Node,
  type NodeChange,
  type NodeProps,
  applyNodeChanges,
  useReactFlow,
} from "@xyflow/react";
import "@xyflow/react/dist/base.css";
import { Crown, LogIn, LogOut, X } from "lucide-react";

import type { MemberStatus } from "../runs/runState";
import { INPUT_NODE, OUTPUT_NODE, edgesFor, positionOf, type Point, type SwarmDraft } from "./draft";

type AgentNodeData = {
  agentId: string;
  name: string;
  order: number;
  orchestrator: boolean;
  hierarchical: boolean;
  vertical: boolean;
  status: MemberStatus | null;
  missing: boolean;
  onRemove(agentId: string): void;
  onToggleOrchestrator(agentId: string): void;
  labels: { remove: string; lead: string; makeLead: string; missing: string };
};

type EndpointNodeData = { label: string; kind: "input" | "output"; vertical: boolean };

type AgentNode = Node<AgentNodeData, "agent">;
type EndpointNode = Node<EndpointNodeData, "endpoint">;

function AgentNodeView({ data }: NodeProps<AgentNode>) {
  const classes = ["agent-node", data.orchestrator ? "is-lead" : "", data.status ? `run-${data.status}` : "", data.missing ? "is-missing" : ""]
    .filter(Boolean)
    .join(" ");
  return (
    <div className={classes} data-testid={`node-${data.agentId}`}>
      <Handle type="target" position={data.vertical ? Position.Top : Position.Left} />
      <div className="agent-node-head">
        <span className="agent-node-order">{data.orchestrator ? <Crown size={12} /> : data.order}</span>
        <span className="agent-node-name">{data.name}</span>
        <button
          type="button"
          className="agent-node-btn nodrag"
          aria-label={data.labels.remove}
          title={data.labels.remove}
          onClick={() => data.onRemove(data.agentId)}
          data-testid={`remove-${data.agentId}`}
        >
          <X size={12} />
        </button>
      </div>
      <div className="agent-node-sub mono">{data.missing ? data.labels.missing : data.agentId}</div>
      {data.hierarchical && (
        <button
          type="button"
          className={data.orchestrator ? "agent-node-lead active nodrag" : "agent-node-lead nodrag"}
          aria-pressed={data.orchestrator}
          onClick={() => data.onToggleOrchestrator(data.agentId)}
          data-testid={`lead-${data.agentId}`}
        >
          <Crown size={11} /> {data.orchestrator ? data.labels.lead : data.labels.makeLead}
        </button>
      )}
      <Handle type="source" position={data.vertical ? Position.Bottom : Position.Right} />
    </div>
  );
}

function EndpointNodeView({ data }: NodeProps<EndpointNode>) {
  const vertical = data.vertical;
  return (
    <div className={`endpoint-node endpoint-${data.kind}`}>
      {data.kind === "output" && <Handle type="target" position={vertical ? Position.Top : Position.Left} />}
      {data.kind === "input" ? <LogIn size={13} /> : <LogOut size={13} />}
      <span>{data.label}</span>
      {data.kind === "input" && <Handle type="source" position={vertical ? Position.Bottom : Position.Right} />}
    </div>
  );
}

const NODE_TYPES = { agent: AgentNodeView, endpoint: EndpointNodeView };

/** Re-frames the graph when members come or go or the strategy changes. */
function FitWhen({ signature }: { signature: string }) {
  const flow = useReactFlow();
  useEffect(() => {
    const timer = window.setTimeout(() => void flow.fitView({ padding: 0.12, maxZoom: 1.1, duration: 180 }), 30);
    return () => window.clearTimeout(timer);
  }, [flow, signature]);
  return null;
}

interface SwarmGraphProps {
  draft: SwarmDraft;
  names: Record<string, string>;
  statuses?: Record<string, MemberStatus>;
  onMove(agentId: string, to: Point): void;
  onRemove(agentId: string): void;
  onToggleOrchestrator(agentId: string): void;
}

export function SwarmGraph({ draft, names, statuses = {}, onMove, onRemove, onToggleOrchestrator }: SwarmGraphProps) {
  const { t } = useTranslation();
  // The graph flows top to bottom, which fits the builder's column.
  const vertical = true;
  const labels = {
    remove: t("swarms.graph.remove"),
    lead: t("swarms.graph.lead"),
    makeLead: t("swarms.graph.makeLead"),
    missing: t("swarms.graph.missing"),
  };

  const derived = useMemo(() => {
    const points = draft.members.map((m) => positionOf(draft, m.agentId));
    const xs = points.map((p) => p.x);
    const ys = points.map((p) => p.y);
    const [minX, maxX] = xs.length ? [Math.min(...xs), Math.max(...xs)] : [0, 0];
    const [minY, maxY] = ys.length ? [Math.min(...ys), Math.max(...ys)] : [0, 0];
    const centre = (minX + maxX) / 2 + 40;
    const endpoints: EndpointNode[] = [
      { id: INPUT_NODE, type: "endpoint", position: { x: centre, y: minY - 110 }, draggable: false, selectable: false, data: { label: t("swarms.graph.input"), kind: "input", vertical } },
      { id: OUTPUT_NODE, type: "endpoint", position: { x: centre, y: maxY + 150 }, draggable: false, selectable: false, data: { label: t("swarms.graph.output"), kind: "output", vertical } },
    ];
    const members: AgentNode[] = draft.members.map((m, i) => ({
      id: m.agentId,
      type: "agent",
      position: points[i] ?? { x: 0, y: 0 },
      data: {
        agentId: m.agentId,
        name: names[m.agentId] ?? m.agentId,
        order: i + 1,
        orchestrator: m.role === "orchestrator",
        hierarchical: draft.strategy === "hierarchical",
        vertical,
        status: statuses[m.agentId] ?? null,
        missing: !(m.agentId in names),
        onRemove,
        onToggleOrchestrator,
        labels,
      },
    }));
    return draft.members.length ? [...endpoints, ...members] : [];
    // labels are derived from t; listing t covers them.
    // eslint-disable-next-line react-hooks/exhaustive-deps
  }, [draft, names, statuses, vertical, onRemove, onToggleOrchestrator, t]);

  const edges: Edge[] = useMemo(
    () =>
      edgesFor(draft).map((e) => ({
        id: e.id,
        source: e.source,
        target: e.target,
        animated: e.kind === "delegates" || statuses[e.target] === "working",
        className: e.kind === "delegates" ? "edge-delegates" : "edge-flow",
        markerEnd: { type: MarkerType.ArrowClosed, width: 16, height: 16 },
      })),
    [draft, statuses],
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
    for (const change of changes) {
      // The draft takes the place where a drag ends.
      if (change.type !== "position" || change.dragging !== false || change.id.startsWith("__")) continue;
      const at = change.position ?? next.find((n) => n.id === change.id)?.position;
      if (at) onMove(change.id, { x: Math.round(at.x), y: Math.round(at.y) });
    }
  };

  return (
    <ReactFlow
      nodes={nodes}
      edges={edges}
      nodeTypes={NODE_TYPES}
      onNodesChange={onNodesChange}
      nodesConnectable={false}
      edgesFocusable={false}
      fitView
      fitViewOptions={{ padding: 0.12, maxZoom: 1.1 }}
      minZoom={0.3}
      maxZoom={1.6}
      proOptions={{ hideAttribution: true }}
      deleteKeyCode={null}
    >
      <FitWhen signature={`${draft.strategy}:${draft.members.map((m) => m.agentId).join(",")}`} />
      <Background gap={20} size={1} />
      <Controls showInteractive={false} />
    </ReactFlow>
  );
}
