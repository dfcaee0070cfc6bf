// Building a swarm: its name and strategy, its members on a graph (dragged
// in from the catalog) — the graph is the member list: order, who leads and
// taking a member out are on its nodes. Save stays off while the backend
// would refuse the draft (H7), says why, and offers the one-click fix; the
// backend still validates and its refusals are shown where they belong.

import { useCallback, useMemo, type Dispatch, type FormEvent, type SetStateAction } from "react";
import { useMutation, useQuery, useQueryClient } from "@tanstack/react-query";
import { useTranslation } from "react-i18next";
import { useReactFlow } from "@xyflow/react";
import { TriangleAlert, Trash2, Wrench } from "lucide-react";

import { runtimeApi, type ApiError, type Strategy, type Swarm, type SwarmSaved } from "../../api";
import { errorText, fieldErrorText } from "../../app/errorText";
import { Banner } from "../../components/Banner";
import { Button } from "../../components/Button";
import { Field } from "../../components/Field";
import { Segmented } from "../../components/Segmented";
import { agentsQuery } from "../catalog/queries";
import { runtimeKeys } from "../runs/queries";
import { AgentPalette } from "./AgentPalette";
import { addMember, applyFix, moveMember, problemsOf, removeMember, setOrchestrator, setStrategy, toInput, type Point, type SwarmDraft } from "./draft";
import { useProblemText } from "./problemText";
import { SwarmGraph } from "./SwarmGraph";

interface SwarmBuilderProps {
  swarm?: Swarm;
  draft: SwarmDraft;
  setDraft: Dispatch<SetStateAction<SwarmDraft>>;
  dirty: boolean;
  names: Record<string, string>;
  onSaved(saved: SwarmSaved): void;
  onDeleted(): void;
}

const STRATEGIES: Strategy[] = ["sequential", "parallel", "hierarchical"];

export function SwarmBuilder({ swarm, draft, setDraft, dirty, names, onSaved, onDeleted }: SwarmBuilderProps) {
  const { t } = useTranslation();
  const client = useQueryClient();
  const flow = useReactFlow();
  const agentsList = useQuery(agentsQuery);
  const agents = useMemo(() => agentsList.data ?? [], [agentsList.data]);
  const known = useMemo(() => (agentsList.data ? new Set(agentsList.data.map((a) => a.id)) : null), [agentsList.data]);
  const descriptions = useMemo(() => Object.fromEntries(agents.map((a) => [a.id, a.description])), [agents]);
  const problemText = useProblemText(names);
  const refresh = () => void client.invalidateQueries({ queryKey: runtimeKeys.swarms });

  const save = useMutation<SwarmSaved, ApiError>({
    mutationFn: () => (swarm ? runtimeApi.updateSwarm(swarm.id, toInput(draft)) : runtimeApi.createSwarm(toInput(draft))),
    onSuccess: (saved) => {
      refresh();
      onSaved(saved);
    },
  });
  const remove = useMutation<null, ApiError>({
    mutationFn: () => runtimeApi.deleteSwarm(swarm?.id ?? ""),
    onSuccess: () => {
      refresh();
      onDeleted();
    },
  });

  const onMove = useCallback((id: string, to: Point) => setDraft((d) => ({ ...d, layout: { ...d.layout, [id]: to } })), [setDraft]);
  const actions = useMemo(
    () => ({
      onRemove: (id: string) => setDraft((d) => removeMember(d, id)),
      onToggleOrchestrator: (id: string) =>
        setDraft((d) => setOrchestrator(d, id, d.members.find((m) => m.agentId === id)?.role !== "orchestrator")),
      onReorder: (id: string, by: -1 | 1) => setDraft((d) => moveMember(d, id, by)),
    }),
    [setDraft],
  );
  const onDrop = (agentId: string, at: { x: number; y: number }) => {
    const canvas = document.querySelector("[data-testid='swarm-canvas']")?.getBoundingClientRect();
    if (!canvas || at.x < canvas.left || at.x > canvas.right || at.y < canvas.top || at.y > canvas.bottom) return;
    const point = flow.screenToFlowPosition(at);
    setDraft((d) => addMember(d, agentId, { x: Math.round(point.x - 90), y: Math.round(point.y - 30) }));
  };

  const problems = problemsOf(draft, known);
  const memberProblem = problems.find((p) => p.field === "members");
  const fix = problems.find((p) => p.fix)?.fix;
  const blocked = problems.length > 0;
  const backend = save.error?.fieldProblems() ?? {};
  const generalError =
    (save.error && !backend.name && !backend.members ? errorText(t, save.error) : null) ?? (remove.error ? errorText(t, remove.error) : null);
  const submit = (event: FormEvent) => {
    event.preventDefault();
    if (!blocked) save.mutate();
  };

  return (
    <form className="card editor swarm-builder" onSubmit={submit} noValidate data-testid="swarm-builder">
      {generalError && <Banner tone="danger" testId="swarm-error">{generalError}</Banner>}
      <div className="form-grid">
        <Field id="swarm-name" label={t("swarms.fields.name")} error={fieldErrorText(t, backend.name, save.error)}>
          <input
            id="swarm-name"
            className="input"
            value={draft.name}
            onChange={(e) => setDraft((d) => ({ ...d, name: e.target.value }))}
            aria-invalid={Boolean(backend.name)}
          />
        </Field>
        <div className="field">
          <span className="field-label">{t("swarms.fields.strategy")}</span>
          <Segmented<Strategy>
            label={t("swarms.fields.strategy")}
            value={draft.strategy}
            onChange={(s) => setDraft((d) => setStrategy(d, s))}
            options={STRATEGIES.map((s) => ({ value: s, label: t(`swarms.strategies.${s}`), testId: `strategy-${s}` }))}
          />
          <p className="field-hint">{t(`swarms.strategyHints.${draft.strategy}`)}</p>
        </div>
      </div>
      <Field id="swarm-description" label={t("swarms.fields.description")}>
        <input
          id="swarm-description"
          className="input"
          value={draft.description}
          onChange={(e) => setDraft((d) => ({ ...d, description: e.target.value }))}
        />
      </Field>

      <div className="builder">
        <AgentPalette
          agents={agents}
          inSwarm={draft.members.map((m) => m.agentId)}
          onAdd={(id) => setDraft((d) => addMember(d, id))}
          onDrop={onDrop}
        />
        <div className={memberProblem && draft.members.length > 0 ? "canvas canvas-blocked" : "canvas"} data-testid="swarm-canvas">
          {draft.members.length === 0 && <p className="canvas-empty muted">{t("swarms.graph.empty")}</p>}
          {memberProblem && draft.members.length > 0 && (
            <p className="canvas-notice" role="status" data-testid="graph-not-runnable">
              <TriangleAlert size={14} aria-hidden="true" />
              <span>{t("swarms.graph.notRunnable", { reason: problemText(memberProblem) })}</span>
            </p>
          )}
          <div className="canvas-flow">
            <SwarmGraph
              draft={draft}
              names={names}
              descriptions={descriptions}
              runnable={!memberProblem}
              editable
              actions={actions}
              onMove={onMove}
            />
          </div>
        </div>
      </div>
      {backend.members && (
        <p className="field-error" role="alert" data-testid="error-members">
          {fieldErrorText(t, backend.members, save.error)}
        </p>
      )}

      <footer className="editor-foot swarm-save-bar">
        {swarm && (
          <Button variant="ghost" icon={<Trash2 size={15} />} busy={remove.isPending} onClick={() => remove.mutate()} data-testid="delete-swarm">
            {t("common.delete")}
          </Button>
        )}
        <span className="spacer" />
        {blocked ? (
          <p className="save-blocked" data-testid="save-blocked">
            {t("swarms.blocked.lead")} {problemText.list(problems)}.
          </p>
        ) : (
          swarm && dirty && <span className="muted small" data-testid="swarm-unsaved">{t("swarms.unsaved")}</span>
        )}
        {fix && (
          <Button size="sm" icon={<Wrench size={14} />} onClick={() => setDraft((d) => applyFix(d, fix))} data-testid="fix-swarm">
            {problemText.fixLabel(fix)}
          </Button>
        )}
        <Button
          variant="primary"
          type="submit"
          busy={save.isPending}
          disabled={blocked || (Boolean(swarm) && !dirty)}
          title={blocked ? `${t("swarms.blocked.lead")} ${problemText.list(problems)}.` : undefined}
          data-testid="save-swarm"
        >
          {swarm ? t("common.save") : t("swarms.create")}
        </Button>
      </footer>
    </form>
  );
}
