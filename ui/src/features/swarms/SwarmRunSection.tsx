// Running a saved swarm, first thing on its page: the input and Run on top;
// under them the swarm's graph, lit by the live run (who works, the hand-off
// happening now, how each member ended), next to the run panel where each
// member's steps stream in; then the swarm's recent runs, by what they were
// asked and when (the id in the tooltip). What keeps it from running is said
// once, with the way to fix it.

import { useEffect, useMemo, useRef, useState } from "react";
import type { FormEvent } from "react";
import { useQuery } from "@tanstack/react-query";
import { useTranslation } from "react-i18next";
import { Hammer, Network, Play } from "lucide-react";

import { runtimeApi, type Swarm } from "../../api";
import { useDates } from "../../app/dates";
import { useShortcutAction } from "../../app/shortcutsHooks";
import { Banner } from "../../components/Banner";
import { Button } from "../../components/Button";
import { Field } from "../../components/Field";
import { RunDetailDialog } from "../runs/RunDetailDialog";
import { PhaseBadge, RunPanel, type ExpectedMember } from "../runs/RunPanel";
import { runsQuery } from "../runs/queries";
import type { RunHandle } from "../runs/useRun";
import type { DraftProblem, SwarmDraft } from "./draft";
import { liveGraph } from "./liveGraph";
import { useProblemText } from "./problemText";
import { SwarmGraph } from "./SwarmGraph";

interface SwarmRunSectionProps {
  swarm: Swarm;
  /** The saved swarm as a draft: what a run uses. */
  saved: SwarmDraft;
  /** What keeps the saved swarm from running (e.g. a member deleted since). */
  problems: DraftProblem[];
  run: RunHandle;
  names: Record<string, string>;
  unsaved: boolean;
  onEdit(): void;
}

export function SwarmRunSection({ swarm, saved, problems, run, names, unsaved, onEdit }: SwarmRunSectionProps) {
  const { t } = useTranslation();
  const dates = useDates();
  const problemText = useProblemText(names);
  const [input, setInput] = useState("");
  const [cancelling, setCancelling] = useState(false);
  const [opened, setOpened] = useState<string | null>(null);
  const stage = useRef<HTMLDivElement>(null);
  // A run that starts brings the graph and the lanes into view.
  useEffect(() => {
    if (run.view.runId) stage.current?.scrollIntoView({ block: "nearest", behavior: "smooth" });
  }, [run.view.runId]);
  const recent = useQuery(runsQuery({ kind: "swarm", targetId: swarm.id, limit: 8 })).data ?? [];
  const running = run.view.phase === "running";
  const runnable = problems.length === 0;
  const live = useMemo(() => (run.view.phase === "idle" ? null : liveGraph(saved, run.view)), [saved, run.view]);
  const expected: ExpectedMember[] = swarm.members.map((m) => ({
    agentId: m.agentId,
    name: names[m.agentId] ?? m.agentId,
    orchestrator: m.role === "orchestrator",
  }));
  const canRun = Boolean(input.trim()) && !running && swarm.enabled && runnable;

  const submit = (event: FormEvent) => {
    event.preventDefault();
    if (!canRun) return;
    void run.start((onEvent) => runtimeApi.runSwarm(swarm.id, input, onEvent));
  };
  useShortcutAction("run", () => canRun && void run.start((onEvent) => runtimeApi.runSwarm(swarm.id, input, onEvent)));
  const cancel = async () => {
    setCancelling(true);
    try {
      await run.cancel();
    } finally {
      setCancelling(false);
    }
  };

  return (
    <section className="card run-section" data-testid="swarm-run">
      <form className="run-form" onSubmit={submit}>
        <Field id="swarm-input" label={t("swarms.run.input")} hint={unsaved ? t("swarms.run.savedVersion") : undefined}>
          <textarea
            id="swarm-input"
            className="input textarea"
            rows={2}
            value={input}
            placeholder={t("swarms.run.placeholder")}
            onChange={(e) => setInput(e.target.value)}
            onKeyDown={(e) => {
              if (e.key === "Enter" && (e.metaKey || e.ctrlKey)) submit(e);
            }}
          />
        </Field>
        <Button
          variant="primary"
          type="submit"
          icon={<Play size={15} />}
          disabled={!canRun}
          title={t("swarms.run.shortcut")}
          data-testid="run-swarm"
        >
          {t("swarms.run.start")}
        </Button>
      </form>
      {!swarm.enabled && (
        <Banner tone="info" testId="run-switched-off">
          {t("swarms.run.disabled")}
        </Banner>
      )}
      {!runnable && (
        <Banner tone="warning" testId="run-blocked">
          <p>{t("swarms.run.blocked", { reason: problemText.list(problems) })}</p>
          <Button size="sm" icon={<Hammer size={14} />} onClick={onEdit} data-testid="run-blocked-edit">
            {t("swarms.run.edit")}
          </Button>
        </Banner>
      )}
      <div className="run-stage" ref={stage}>
        <div className={runnable ? "canvas run-graph" : "canvas run-graph canvas-blocked"} data-testid="run-graph" data-phase={run.view.phase}>
          <div className="canvas-flow">
            <SwarmGraph draft={saved} names={names} live={live} runnable={runnable} />
          </div>
        </div>
        <div className="run-live">
          {run.view.phase !== "idle" || run.refusal ? (
            <RunPanel view={run.view} refusal={run.refusal} expected={expected} names={names} onCancel={() => void cancel()} cancelling={cancelling} />
          ) : (
            <div className="run-idle" data-testid="run-idle">
              <Network size={20} aria-hidden="true" />
              <p>{t("swarms.run.idle")}</p>
            </div>
          )}
        </div>
      </div>
      {recent.length > 0 && (
        <div className="recent-runs">
          <h4>{t("swarms.run.recent")}</h4>
          <ul>
            {recent.map((r) => (
              <li key={r.id}>
                <button
                  type="button"
                  className="recent-run"
                  title={t("swarms.run.recentTooltip", { when: dates.exact(r.startedAt), id: r.id })}
                  onClick={() => setOpened(r.id)}
                  data-testid={`recent-${r.id}`}
                >
                  <PhaseBadge phase={r.status} />
                  <span className="recent-input">{r.input}</span>
                  <span className="muted small">{dates.when(r.startedAt)}</span>
                </button>
              </li>
            ))}
          </ul>
        </div>
      )}
      {opened && <RunDetailDialog id={opened} names={names} onClose={() => setOpened(null)} />}
    </section>
  );
}
