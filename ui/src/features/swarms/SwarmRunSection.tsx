// Running a saved swarm: the input, the live run panel, and the swarm's
// recent runs (each one can be opened to read what happened).

import { useEffect, useRef, useState } from "react";
import type { FormEvent } from "react";
import { useQuery } from "@tanstack/react-query";
import { useTranslation } from "react-i18next";
import { Play } from "lucide-react";

import { runtimeApi, type Swarm } from "../../api";
import { Button } from "../../components/Button";
import { Field } from "../../components/Field";
import { RunDetailDialog } from "../runs/RunDetailDialog";
import { PhaseBadge, RunPanel, type ExpectedMember } from "../runs/RunPanel";
import { runsQuery } from "../runs/queries";
import type { RunHandle } from "../runs/useRun";

interface SwarmRunSectionProps {
  swarm: Swarm;
  run: RunHandle;
  names: Record<string, string>;
  unsaved: boolean;
}

export function SwarmRunSection({ swarm, run, names, unsaved }: SwarmRunSectionProps) {
  const { t, i18n } = useTranslation();
  const [input, setInput] = useState("");
  const [cancelling, setCancelling] = useState(false);
  const [opened, setOpened] = useState<string | null>(null);
  const panel = useRef<HTMLDivElement>(null);
  // A run that starts comes into view, lanes and all.
  useEffect(() => {
    if (run.view.runId) panel.current?.scrollIntoView({ block: "start", behavior: "smooth" });
  }, [run.view.runId]);
  const recent = useQuery(runsQuery({ kind: "swarm", targetId: swarm.id, limit: 8 })).data ?? [];
  const running = run.view.phase === "running";
  const expected: ExpectedMember[] = swarm.members.map((m) => ({
    agentId: m.agentId,
    name: names[m.agentId] ?? m.agentId,
    orchestrator: m.role === "orchestrator",
  }));

  const submit = (event: FormEvent) => {
    event.preventDefault();
    if (!input.trim() || running) return;
    void run.start((onEvent) => runtimeApi.runSwarm(swarm.id, input, onEvent));
  };
  const cancel = async () => {
    setCancelling(true);
    try {
      await run.cancel();
    } finally {
      setCancelling(false);
    }
  };
  const time = new Intl.DateTimeFormat(i18n.language, { dateStyle: "short", timeStyle: "short" });

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
          disabled={!input.trim() || running || !swarm.enabled}
          title={swarm.enabled ? undefined : t("swarms.run.disabled")}
          data-testid="run-swarm"
        >
          {t("swarms.run.start")}
        </Button>
      </form>
      <div ref={panel} className="run-anchor" />
      {(run.view.phase !== "idle" || run.refusal) && (
        <RunPanel view={run.view} refusal={run.refusal} expected={expected} names={names} onCancel={() => void cancel()} cancelling={cancelling} />
      )}
      {recent.length > 0 && (
        <div className="recent-runs">
          <h4>{t("swarms.run.recent")}</h4>
          <ul>
            {recent.map((r) => (
              <li key={r.id}>
                <button type="button" className="recent-run" onClick={() => setOpened(r.id)} data-testid={`recent-${r.id}`}>
                  <PhaseBadge phase={r.status} />
                  <span className="recent-input">{r.input}</span>
                  <span className="muted small">{time.format(new Date(r.startedAt))}</span>
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
