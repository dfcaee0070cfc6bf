// Runs cut off when the app last stopped (a crash, a kill, a power cut),
// offered for resume from their checkpoint on the next start (H42). A run
// resumed here streams in a dialog; one in a conversation lands there too.
//
// The banner owns the resumed run (not the dialog), so it knows when the run
// ends even after the dialog is closed: while it runs its row reads
// "Resuming…" (with no second Resume), and once it ends the row goes and the
// dialog's title says how it ended — never "Resuming" for a finished run.

import { useState } from "react";
import { useMutation, useQuery, useQueryClient } from "@tanstack/react-query";
import { useTranslation } from "react-i18next";
import { RotateCcw } from "lucide-react";

import { runtimeApi, type ApiError, type Run } from "../../api";
import { errorText } from "../../app/errorText";
import { Banner } from "../../components/Banner";
import { Button } from "../../components/Button";
import { Dialog } from "../../components/Dialog";
import { Spinner } from "../../components/Spinner";
import { useAgentName } from "../catalog/agentName";
import { agentsQuery } from "../catalog/queries";
import { resumableQuery, runtimeKeys, swarmsQuery } from "./queries";
import { RunPanel } from "./RunPanel";
import { useRun } from "./useRun";

/** Agent and swarm names by id, for titles that read as words. */
function useTargetNames(): Record<string, string> {
  const agentName = useAgentName();
  const agents = useQuery(agentsQuery).data ?? [];
  const swarms = useQuery(swarmsQuery).data ?? [];
  return Object.fromEntries([...swarms.map((s) => [s.id, s.name]), ...agents.map((a) => [a.id, agentName(a)])]);
}

export function ResumeBanner() {
  const { t } = useTranslation();
  const client = useQueryClient();
  const resumable = useQuery(resumableQuery).data ?? [];
  const handle = useRun();
  const names = useTargetNames();
  // The run resumed from here (one at a time), whether its dialog is open,
  // and the runs already resumed: they never come back as resumable rows,
  // even before the list is fetched again.
  const [active, setActive] = useState<Run | null>(null);
  const [open, setOpen] = useState(false);
  const [done, setDone] = useState<ReadonlySet<string>>(new Set());
  const discard = useMutation<Run, ApiError, string>({
    mutationFn: (id) => runtimeApi.discardRun(id),
    onSettled: () => void client.invalidateQueries({ queryKey: runtimeKeys.runs }),
  });

  const running = active !== null && !done.has(active.id);
  const resume = (run: Run) => {
    setActive(run);
    setOpen(true);
    void handle
      .start((onEvent) => runtimeApi.resumeRun(run.id, onEvent))
      .finally(() => {
        setDone((ids) => new Set(ids).add(run.id));
        void client.invalidateQueries({ queryKey: runtimeKeys.runs });
        void client.invalidateQueries({ queryKey: runtimeKeys.conversations });
      });
  };

  const shown = resumable.filter((r) => !done.has(r.id));
  const title = (run: Run) => t(`runs.kind.${run.kind}`, { id: names[run.targetId] ?? run.targetId });

  return (
    <>
      {shown.length > 0 && (
        <div className="resume-strip" data-testid="resume-banner">
          <Banner tone="warning">
            <p>{t("runs.interrupted.title", { count: shown.length })}</p>
            <ul className="resume-list">
              {shown.map((run) => (
                <li key={run.id} data-testid={`resumable-${run.id}`}>
                  <span className="resume-what">
                    <strong>{title(run)}</strong>
                    <span className="muted"> · “{run.input.length > 60 ? `${run.input.slice(0, 60)}…` : run.input}”</span>
                  </span>
                  {active?.id === run.id ? (
                    <>
                      <span className="resume-running" data-testid="resume-running">
                        <Spinner size={13} />
                        {t("defects.resume.running")}
                      </span>
                      <Button size="sm" variant="ghost" onClick={() => setOpen(true)}>
                        {t("defects.resume.show")}
                      </Button>
                    </>
                  ) : (
                    <>
                      <Button
                        size="sm"
                        variant="primary"
                        icon={<RotateCcw size={13} />}
                        disabled={running}
                        title={running ? t("defects.resume.busy") : undefined}
                        onClick={() => resume(run)}
                        data-testid={`resume-${run.id}`}
                      >
                        {t("runs.interrupted.resume")}
                      </Button>
                      <Button size="sm" variant="ghost" busy={discard.isPending && discard.variables === run.id} onClick={() => discard.mutate(run.id)}>
                        {t("runs.interrupted.discard")}
                      </Button>
                    </>
                  )}
                </li>
              ))}
            </ul>
            {discard.error && <p className="field-error">{errorText(t, discard.error)}</p>}
          </Banner>
        </div>
      )}
      {active && open && (
        <Dialog
          title={t(`defects.resume.title.${running ? "running" : phaseOf(handle.view.phase)}`, { name: names[active.targetId] ?? active.targetId })}
          onClose={() => setOpen(false)}
          closeLabel={t("common.close")}
          width={760}
          testId="resume-dialog"
        >
          <p className="small muted">“{active.input}”</p>
          <RunPanel view={handle.view} refusal={handle.refusal} names={names} onCancel={() => void handle.cancel()} />
        </Dialog>
      )}
    </>
  );
}

/** How a resumed run ended, as a title key; a refused resume reads as failed. */
function phaseOf(phase: string): "completed" | "failed" | "cancelled" | "interrupted" {
  return phase === "completed" || phase === "cancelled" || phase === "interrupted" ? phase : "failed";
}
