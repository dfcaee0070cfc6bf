// Runs cut off when the app last stopped (a crash, a kill, a power cut),
// offered for resume from their checkpoint on the next start (H42). A run
// resumed here streams in a dialog; one in a conversation lands there too.

import { useEffect, useRef, useState } from "react";
import { useMutation, useQuery, useQueryClient } from "@tanstack/react-query";
import { useTranslation } from "react-i18next";
import { RotateCcw } from "lucide-react";

import { runtimeApi, type ApiError, type Run } from "../../api";
import { errorText } from "../../app/errorText";
import { Banner } from "../../components/Banner";
import { Button } from "../../components/Button";
import { Dialog } from "../../components/Dialog";
import { useAgentName } from "../catalog/agentName";
import { agentsQuery } from "../catalog/queries";
import { resumableQuery, runtimeKeys } from "./queries";
import { RunPanel } from "./RunPanel";
import { useRun } from "./useRun";

export function ResumeBanner() {
  const { t } = useTranslation();
  const client = useQueryClient();
  const resumable = useQuery(resumableQuery).data ?? [];
  const [resuming, setResuming] = useState<Run | null>(null);
  const discard = useMutation<Run, ApiError, string>({
    mutationFn: (id) => runtimeApi.discardRun(id),
    onSettled: () => void client.invalidateQueries({ queryKey: runtimeKeys.runs }),
  });
  const shown = resumable.filter((r) => r.id !== resuming?.id);
  if (shown.length === 0 && !resuming) return null;

  return (
    <>
      {shown.length > 0 && (
        <div className="resume-strip" data-testid="resume-banner">
          <Banner tone="warning">
            <p>{t("runs.interrupted.title", { count: shown.length })}</p>
            <ul className="resume-list">
              {shown.map((run) => (
                <li key={run.id}>
                  <span className="resume-what">
                    <strong>{t(`runs.kind.${run.kind}`, { id: run.targetId })}</strong>
                    <span className="muted"> · “{run.input.length > 60 ? `${run.input.slice(0, 60)}…` : run.input}”</span>
                  </span>
                  <Button size="sm" variant="primary" icon={<RotateCcw size={13} />} onClick={() => setResuming(run)} data-testid={`resume-${run.id}`}>
                    {t("runs.interrupted.resume")}
                  </Button>
                  <Button size="sm" variant="ghost" busy={discard.isPending && discard.variables === run.id} onClick={() => discard.mutate(run.id)}>
                    {t("runs.interrupted.discard")}
                  </Button>
                </li>
              ))}
            </ul>
            {discard.error && <p className="field-error">{errorText(t, discard.error)}</p>}
          </Banner>
        </div>
      )}
      {resuming && <ResumeDialog run={resuming} onClose={() => setResuming(null)} />}
    </>
  );
}

function ResumeDialog({ run, onClose }: { run: Run; onClose(): void }) {
  const { t } = useTranslation();
  const client = useQueryClient();
  const handle = useRun();
  const agentName = useAgentName();
  const names = Object.fromEntries((useQuery(agentsQuery).data ?? []).map((a) => [a.id, agentName(a)]));
  const begun = useRef(false);
  const { start } = handle;
  useEffect(() => {
    if (begun.current) return;
    begun.current = true;
    void start((onEvent) => runtimeApi.resumeRun(run.id, onEvent)).finally(() => {
      void client.invalidateQueries({ queryKey: runtimeKeys.runs });
      void client.invalidateQueries({ queryKey: runtimeKeys.conversations });
    });
  }, [start, run.id, client]);
  return (
    <Dialog title={t("runs.interrupted.dialog", { id: run.targetId })} onClose={onClose} closeLabel={t("common.close")} width={760} testId="resume-dialog">
      <p className="small muted">“{run.input}”</p>
      <RunPanel view={handle.view} refusal={handle.refusal} names={names} onCancel={() => void handle.cancel()} />
    </Dialog>
  );
}
