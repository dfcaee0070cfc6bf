// Building a swarm: its name and strategy, its members on a graph (dragged
// in from the catalog), their order and who leads. Saving validates on the
// backend (H7); what the members still need comes back and can be switched
// on from here (H10).

import { useCallback, useEffect, useState } from "react";
import type { FormEvent } from "react";
import { useMutation, useQuery, useQueryClient } from "@tanstack/react-query";
import { useTranslation } from "react-i18next";
import { useReactFlow } from "@xyflow/react";
import { ArrowDown, ArrowUp, Crown, Trash2, X, Zap } from "lucide-react";

import { runtimeApi, type ActivationPlan, type ApiError, type Strategy, type Swarm, type SwarmSaved } from "../../api";
import { errorText, fieldErrorText } from "../../app/errorText";
import { Banner } from "../../components/Banner";
import { Button, IconButton } from "../../components/Button";
import { Field } from "../../components/Field";
import { Segmented } from "../../components/Segmented";
import { Switch } from "../../components/Switch";
import { useAgentName } from "../catalog/agentName";
import { agentsQuery } from "../catalog/queries";
import { runtimeKeys } from "../runs/queries";
import type { MemberStatus } from "../runs/runState";
import { AgentPalette } from "./AgentPalette";
import {
  EMPTY_DRAFT,
  addMember,
  draftFrom,
  moveMember,
  removeMember,
  sameDraft,
  setOrchestrator,
  setStrategy,
  toInput,
  type Point,
  type SwarmDraft,
} from "./draft";
import { SwarmGraph } from "./SwarmGraph";

interface SwarmBuilderProps {
  swarm?: Swarm;
  pending: ActivationPlan | null;
  statuses: Record<string, MemberStatus>;
  onSaved(saved: SwarmSaved): void;
  onActivated(saved: SwarmSaved): void;
  onDeleted(): void;
  onDirtyChange?(dirty: boolean): void;
}

const STRATEGIES: Strategy[] = ["sequential", "parallel", "hierarchical"];

export function SwarmBuilder({ swarm, pending, statuses, onSaved, onActivated, onDeleted, onDirtyChange }: SwarmBuilderProps) {
  const { t } = useTranslation();
  const client = useQueryClient();
  const flow = useReactFlow();
  const agentName = useAgentName();
  const agents = useQuery(agentsQuery).data ?? [];
  const names = Object.fromEntries(agents.map((a) => [a.id, agentName(a)]));
  const [draft, setDraft] = useState<SwarmDraft>(() => (swarm ? draftFrom(swarm) : EMPTY_DRAFT));
  const dirty = swarm ? !sameDraft(draft, draftFrom(swarm)) : true;
  const refresh = () => void client.invalidateQueries({ queryKey: runtimeKeys.swarms });
  useEffect(() => onDirtyChange?.(dirty), [dirty, onDirtyChange]);

  const save = useMutation<SwarmSaved, ApiError>({
    mutationFn: () => (swarm ? runtimeApi.updateSwarm(swarm.id, toInput(draft)) : runtimeApi.createSwarm(toInput(draft))),
    onSuccess: (saved) => {
      refresh();
      setDraft(draftFrom(saved.swarm));
      onSaved(saved);
    },
  });
  const activate = useMutation<SwarmSaved, ApiError>({
    mutationFn: () => runtimeApi.updateSwarm(swarm?.id ?? "", { activateMembers: true }),
    onSuccess: (saved) => {
      refresh();
      void client.invalidateQueries({ queryKey: ["agents"] });
      void client.invalidateQueries({ queryKey: ["tools"] });
      onActivated(saved);
    },
  });
  const toggle = useMutation<Swarm, ApiError, boolean>({
    mutationFn: (enabled) => runtimeApi.setSwarmEnabled(swarm?.id ?? "", enabled),
    onSettled: refresh,
  });
  const remove = useMutation<null, ApiError>({
    mutationFn: () => runtimeApi.deleteSwarm(swarm?.id ?? ""),
    onSuccess: () => {
      refresh();
      onDeleted();
    },
  });

  const onMove = useCallback((id: string, to: Point) => setDraft((d) => ({ ...d, layout: { ...d.layout, [id]: to } })), []);
  const onRemove = useCallback((id: string) => setDraft((d) => removeMember(d, id)), []);
  const onToggleLead = useCallback(
    (id: string) => setDraft((d) => setOrchestrator(d, id, d.members.find((m) => m.agentId === id)?.role !== "orchestrator")),
    [],
  );
  const onDrop = (agentId: string, at: { x: number; y: number }) => {
    const canvas = document.querySelector("[data-testid='swarm-canvas']")?.getBoundingClientRect();
    if (!canvas || at.x < canvas.left || at.x > canvas.right || at.y < canvas.top || at.y > canvas.bottom) return;
    const point = flow.screenToFlowPosition(at);
    setDraft((d) => addMember(d, agentId, { x: Math.round(point.x - 90), y: Math.round(point.y - 30) }));
  };

  const problems = save.error?.fieldProblems() ?? {};
  const generalError =
    (save.error && !problems.name && !problems.members ? errorText(t, save.error) : null) ??
    (activate.error ? errorText(t, activate.error) : null) ??
    (toggle.error ? errorText(t, toggle.error) : null) ??
    (remove.error ? errorText(t, remove.error) : null);
  const submit = (event: FormEvent) => {
    event.preventDefault();
    save.mutate();
  };
  const showPending = pending && !dirty && (pending.agents.length > 0 || pending.tools.length > 0 || pending.skills.length > 0);

  return (
    <form className="card editor swarm-builder" onSubmit={submit} noValidate data-testid="swarm-builder">
      <header className="editor-head">
        <div>
          <h3>{swarm ? swarm.name : t("swarms.newTitle")}</h3>
          {swarm && <p className="muted small mono">{swarm.id}</p>}
        </div>
        {swarm && (
          <Switch
            checked={swarm.enabled}
            disabled={toggle.isPending}
            label={t("swarms.toggle", { name: swarm.name })}
            testId="swarm-enabled"
            onChange={(enabled) => toggle.mutate(enabled)}
          />
        )}
      </header>
      {generalError && <Banner tone="danger" testId="swarm-error">{generalError}</Banner>}
      <div className="form-grid">
        <Field id="swarm-name" label={t("swarms.fields.name")} error={fieldErrorText(t, problems.name, save.error)}>
          <input id="swarm-name" className="input" value={draft.name} onChange={(e) => setDraft({ ...draft, name: e.target.value })} aria-invalid={Boolean(problems.name)} />
        </Field>
        <div className="field">
          <span className="field-label">{t("swarms.fields.strategy")}</span>
          <Segmented<Strategy>
            label={t("swarms.fields.strategy")}
            value={draft.strategy}
            onChange={(s) => setDraft(setStrategy(draft, s))}
            options={STRATEGIES.map((s) => ({ value: s, label: t(`swarms.strategies.${s}`), testId: `strategy-${s}` }))}
          />
          <p className="field-hint">{t(`swarms.strategyHints.${draft.strategy}`)}</p>
        </div>
      </div>
      <Field id="swarm-description" label={t("swarms.fields.description")}>
        <input id="swarm-description" className="input" value={draft.description} onChange={(e) => setDraft({ ...draft, description: e.target.value })} />
      </Field>

      <div className="builder">
        <AgentPalette
          agents={agents}
          inSwarm={draft.members.map((m) => m.agentId)}
          onAdd={(id) => setDraft((d) => addMember(d, id))}
          onDrop={onDrop}
        />
        <div className={problems.members ? "canvas canvas-invalid" : "canvas"} data-testid="swarm-canvas">
          {draft.members.length === 0 && <p className="canvas-empty muted">{t("swarms.graph.empty")}</p>}
          <SwarmGraph
            draft={draft}
            names={names}
            statuses={statuses}
            onMove={onMove}
            onRemove={onRemove}
            onToggleOrchestrator={onToggleLead}
          />
        </div>
      </div>
      {problems.members && (
        <p className="field-error" role="alert" data-testid="error-members">
          {fieldErrorText(t, problems.members, save.error)}
        </p>
      )}

      {draft.members.length > 0 && (
        <ol className="member-order" aria-label={t("swarms.order")} data-testid="member-order">
          {draft.members.map((m, i) => (
            <li key={m.agentId} className={m.agentId in names ? "" : "missing"}>
              <span className="member-index">{i + 1}</span>
              {m.role === "orchestrator" && <Crown size={13} className="member-lead" aria-label={t("swarms.graph.lead")} />}
              <span className="member-name">{names[m.agentId] ?? m.agentId}</span>
              <span className="spacer" />
              <IconButton label={t("swarms.moveUp")} disabled={i === 0} onClick={() => setDraft(moveMember(draft, m.agentId, -1))}>
                <ArrowUp size={13} />
              </IconButton>
              <IconButton label={t("swarms.moveDown")} disabled={i === draft.members.length - 1} onClick={() => setDraft(moveMember(draft, m.agentId, 1))} data-testid={`down-${m.agentId}`}>
                <ArrowDown size={13} />
              </IconButton>
              <IconButton label={t("swarms.graph.remove")} onClick={() => onRemove(m.agentId)}>
                <X size={13} />
              </IconButton>
            </li>
          ))}
        </ol>
      )}

      {showPending && pending && (
        <Banner tone="warning" testId="pending-activation">
          <p>{t("swarms.pending.title")}</p>
          <ul className="pending-list">
            {pending.agents.length > 0 && <li>{t("swarms.pending.agents", { list: pending.agents.join(", ") })}</li>}
            {pending.tools.length > 0 && <li>{t("swarms.pending.tools", { list: pending.tools.join(", ") })}</li>}
            {pending.skills.length > 0 && <li>{t("swarms.pending.skills", { list: pending.skills.join(", ") })}</li>}
          </ul>
          <Button size="sm" variant="primary" icon={<Zap size={14} />} busy={activate.isPending} onClick={() => activate.mutate()} data-testid="activate-members">
            {t("swarms.pending.activate")}
          </Button>
        </Banner>
      )}

      <footer className="editor-foot">
        {swarm && (
          <Button variant="ghost" icon={<Trash2 size={15} />} busy={remove.isPending} onClick={() => remove.mutate()} data-testid="delete-swarm">
            {t("common.delete")}
          </Button>
        )}
        <span className="spacer" />
        {swarm && dirty && <span className="muted small">{t("swarms.unsaved")}</span>}
        <Button variant="primary" type="submit" busy={save.isPending} disabled={Boolean(swarm) && !dirty} data-testid="save-swarm">
          {swarm ? t("common.save") : t("swarms.create")}
        </Button>
      </footer>
    </form>
  );
}
