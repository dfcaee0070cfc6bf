// The catalog's agents, to bring into the swarm: drag one onto the graph
// (pointer events, so touch, mouse and automation all work) or press its
// add button. Agents already in the swarm are marked.

import { useEffect, useRef, useState } from "react";
import type { PointerEvent as ReactPointerEvent } from "react";
import { useTranslation } from "react-i18next";
import { Bot, Check, GripVertical, Plus, Sparkles } from "lucide-react";

import type { Agent } from "../../api";
import { useAgentName } from "../catalog/agentName";

interface AgentPaletteProps {
  agents: Agent[];
  inSwarm: string[];
  onAdd(agentId: string): void;
  /** A drop at screen coordinates; the builder decides if it hit the graph. */
  onDrop(agentId: string, at: { x: number; y: number }): void;
}

interface Drag {
  agentId: string;
  name: string;
  x: number;
  y: number;
  moved: boolean;
}

export function AgentPalette({ agents, inSwarm, onAdd, onDrop }: AgentPaletteProps) {
  const { t } = useTranslation();
  const agentName = useAgentName();
  const [drag, setDrag] = useState<Drag | null>(null);
  const dragRef = useRef<Drag | null>(null);

  useEffect(() => {
    if (!drag) return;
    const move = (e: PointerEvent) => {
      const next = { ...(dragRef.current ?? drag), x: e.clientX, y: e.clientY, moved: true };
      dragRef.current = next;
      setDrag(next);
    };
    const up = (e: PointerEvent) => {
      const done = dragRef.current;
      dragRef.current = null;
      setDrag(null);
      if (done?.moved) onDrop(done.agentId, { x: e.clientX, y: e.clientY });
    };
    window.addEventListener("pointermove", move);
    window.addEventListener("pointerup", up, { once: true });
    return () => {
      window.removeEventListener("pointermove", move);
      window.removeEventListener("pointerup", up);
    };
    // Only (re)bind when a drag starts or ends.
    // eslint-disable-next-line react-hooks/exhaustive-deps
  }, [drag === null]);

  const startDrag = (agent: Agent, e: ReactPointerEvent) => {
    if (e.button !== 0 || inSwarm.includes(agent.id)) return;
    e.preventDefault();
    const start = { agentId: agent.id, name: agentName(agent), x: e.clientX, y: e.clientY, moved: false };
    dragRef.current = start;
    setDrag(start);
  };

  // Agents that can run come first; switched-off specialists after them.
  const ordered = [...agents].sort((a, b) => Number(b.enabled) - Number(a.enabled));

  return (
    <div className="palette" data-testid="agent-palette">
      <p className="palette-title">{t("swarms.palette.title")}</p>
      <p className="palette-hint muted small">{t("swarms.palette.hint")}</p>
      <ul className="palette-list">
        {ordered.map((agent) => {
          const added = inSwarm.includes(agent.id);
          return (
            <li
              key={agent.id}
              className={added ? "palette-item added" : "palette-item"}
              onPointerDown={(e) => startDrag(agent, e)}
              data-testid={`palette-${agent.id}`}
            >
              <GripVertical size={13} className="palette-grip" aria-hidden="true" />
              <span className={agent.enabled ? "palette-icon" : "palette-icon off"}>
                {agent.persona ? <Sparkles size={13} /> : <Bot size={13} />}
              </span>
              <span className="palette-name" title={agentName(agent)}>
                {agentName(agent)}
                {!agent.enabled && <span className="palette-off">{t("common.disabled")}</span>}
              </span>
              {added ? (
                <Check size={14} className="palette-added" aria-label={t("swarms.palette.added")} />
              ) : (
                <button
                  type="button"
                  className="icon-btn palette-add"
                  aria-label={t("swarms.palette.add", { name: agentName(agent) })}
                  title={t("swarms.palette.add", { name: agentName(agent) })}
                  onPointerDown={(e) => e.stopPropagation()}
                  onClick={() => onAdd(agent.id)}
                  data-testid={`add-${agent.id}`}
                >
                  <Plus size={14} />
                </button>
              )}
            </li>
          );
        })}
      </ul>
      {drag?.moved && (
        <div className="drag-ghost" style={{ left: drag.x, top: drag.y }} aria-hidden="true">
          <Bot size={13} /> {drag.name}
        </div>
      )}
    </div>
  );
}
