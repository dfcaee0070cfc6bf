// Create or edit a scheduled job: a cron expression or an interval, the
// time zone (the computer's by default), what it runs and with which
// prompt, and what happens to runs missed while no scheduler ran. The next
// runs are previewed as the schedule is typed, in the job's zone.

import { useState } from "react";
import type { FormEvent } from "react";
import { useMutation, useQuery } from "@tanstack/react-query";
import { useTranslation } from "react-i18next";

import { cronApi, type ApiError, type CronJob, type Risk } from "../../api";
import { errorText, fieldErrorText } from "../../app/errorText";
import { authorName } from "../../app/names";
import { Banner } from "../../components/Banner";
import { Button } from "../../components/Button";
import { Dialog } from "../../components/Dialog";
import { Field } from "../../components/Field";
import { Segmented } from "../../components/Segmented";
import { useDebounced } from "../../components/useDebounced";
import { useAgentName } from "../catalog/agentName";
import { GrantFields } from "../catalog/GrantFields";
import { agentsQuery } from "../catalog/queries";
import { authorsQuery } from "../inbox/queries";
import { swarmsQuery } from "../runs/queries";
import { cronKeys } from "./queries";
import {
  changesOf,
  draftOf,
  emptyDraft,
  formatInZone,
  inputOf,
  scheduleOf,
  timeZones,
  UNATTENDED,
  type IntervalUnit,
  type JobDraft,
  type TargetKind,
} from "./schedule";

const UNITS: IntervalUnit[] = ["minutes", "hours", "days", "seconds"];

export function JobDialog({ job, onClose, onSaved }: { job?: CronJob; onClose(): void; onSaved?(id: string): void }) {
  const { t, i18n } = useTranslation();
  const agentName = useAgentName();
  const agents = useQuery(agentsQuery).data ?? [];
  const swarms = useQuery(swarmsQuery).data ?? [];
  const roles = (useQuery(authorsQuery).data ?? []).filter((a) => a.kind === "role" && a.agentId);
  const [draft, setDraft] = useState<JobDraft>(() => (job ? draftOf(job) : emptyDraft()));
  const set = (patch: Partial<JobDraft>) => setDraft((d) => ({ ...d, ...patch }));
  const [zones] = useState(() => timeZones(job?.timeZone));

  const schedule = useDebounced(JSON.stringify(scheduleOf(draft)), 300);
  const preview = useQuery({
    queryKey: cronKeys.preview(schedule, draft.timeZone),
    queryFn: () => cronApi.preview(JSON.parse(schedule), draft.timeZone, 3),
    retry: false,
  });

  const save = useMutation<CronJob, ApiError>({
    mutationFn: () => (job ? cronApi.update(job.id, changesOf(draft, job)) : cronApi.create(inputOf(draft))),
    onSuccess: (saved) => {
      onSaved?.(saved.id);
      onClose();
    },
  });
  const problems = save.error?.fieldProblems() ?? {};
  const fieldError = (field: string) => fieldErrorText(t, problems[field], save.error);
  const general = save.error && !["name", "schedule", "timeZone", "target", "prompt"].some((f) => problems[f]) ? errorText(t, save.error) : null;
  const previewProblem = preview.error ? (preview.error as ApiError).fieldProblems?.()?.schedule ?? (preview.error as ApiError).fieldProblems?.()?.timeZone : undefined;

  const submit = (event: FormEvent) => {
    event.preventDefault();
    save.mutate();
  };
  const targets: { id: string; name: string }[] =
    draft.targetKind === "agent"
      ? agents.map((a) => ({ id: a.id, name: agentName(a) }))
      : draft.targetKind === "swarm"
        ? swarms.map((s) => ({ id: s.id, name: s.name }))
        : roles.map((r) => ({ id: r.id, name: authorName(t, r) }));

  return (
    <Dialog
      title={job ? t("cron.form.editTitle", { name: job.name }) : t("cron.form.newTitle")}
      onClose={onClose}
      closeLabel={t("common.close")}
      testId="cron-dialog"
      width={620}
    >
      <form onSubmit={submit} className="form">
        <Field id="cron-name" label={t("cron.form.name")} error={fieldError("name")}>
          <input
            id="cron-name"
            className="input"
            value={draft.name}
            placeholder={t("cron.form.namePlaceholder")}
            onChange={(e) => set({ name: e.target.value })}
            data-testid="cron-name"
          />
        </Field>

        <div className="field">
          <span className="field-label">{t("cron.form.when")}</span>
          <Segmented
            label={t("cron.form.when")}
            value={draft.mode}
            onChange={(mode) => set({ mode })}
            options={[
              { value: "cron", label: t("cron.form.modeCron"), testId: "cron-mode-cron" },
              { value: "interval", label: t("cron.form.modeInterval"), testId: "cron-mode-interval" },
            ]}
          />
        </div>
        {draft.mode === "cron" ? (
          <Field id="cron-expression" label={t("cron.form.expression")} hint={t("cron.form.expressionHint")} error={fieldError("schedule")}>
            <input
              id="cron-expression"
              className="input mono"
              value={draft.expression}
              onChange={(e) => set({ expression: e.target.value })}
              spellCheck={false}
              data-testid="cron-expression"
            />
          </Field>
        ) : (
          <Field id="cron-every" label={t("cron.form.every")} hint={t("cron.form.everyHint")} error={fieldError("schedule")}>
            <div className="inline-fields">
              <input
                id="cron-every"
                className="input"
                type="number"
                min={1}
                value={draft.every}
                onChange={(e) => set({ every: e.target.value })}
                data-testid="cron-every"
              />
              <select
                className="input"
                aria-label={t("cron.form.unit")}
                value={draft.unit}
                onChange={(e) => set({ unit: e.target.value as IntervalUnit })}
                data-testid="cron-unit"
              >
                {UNITS.map((unit) => (
                  <option key={unit} value={unit}>
                    {t(`cron.form.units.${unit}`)}
                  </option>
                ))}
              </select>
            </div>
          </Field>
        )}
        <Field id="cron-zone" label={t("cron.form.timeZone")} hint={t("cron.form.timeZoneHint")} error={fieldError("timeZone")}>
          <select id="cron-zone" className="input" value={draft.timeZone} onChange={(e) => set({ timeZone: e.target.value })} data-testid="cron-zone">
            {zones.map((zone) => (
              <option key={zone} value={zone}>
                {zone}
              </option>
            ))}
          </select>
        </Field>
        <div className="cron-preview muted small" data-testid="cron-preview" aria-live="polite">
          {preview.data && preview.data.length > 0 && (
            <>
              {t("cron.form.nextRuns")}{" "}
              {preview.data.map((at) => formatInZone(at, i18n.language, draft.timeZone)).join(" · ")}
            </>
          )}
          {previewProblem && <span className="field-error">{fieldErrorText(t, previewProblem, preview.error as ApiError)}</span>}
        </div>

        <div className="field">
          <span className="field-label">{t("cron.form.target")}</span>
          <Segmented
            label={t("cron.form.target")}
            value={draft.targetKind}
            onChange={(targetKind: TargetKind) => set({ targetKind, targetId: "" })}
            options={[
              { value: "agent", label: t("cron.target.agent"), testId: "cron-target-agent" },
              { value: "swarm", label: t("cron.target.swarm"), testId: "cron-target-swarm" },
              { value: "role", label: t("cron.target.role"), testId: "cron-target-role" },
            ]}
          />
        </div>
        <Field id="cron-target" label={t(`cron.form.which.${draft.targetKind}`)} error={fieldError("target")}>
          <select id="cron-target" className="input" value={draft.targetId} onChange={(e) => set({ targetId: e.target.value })} data-testid="cron-target">
            <option value="">{t("cron.form.choose")}</option>
            {targets.map((target) => (
              <option key={target.id} value={target.id}>
                {target.name}
              </option>
            ))}
          </select>
        </Field>
        <Field
          id="cron-prompt"
          label={t("cron.form.prompt")}
          hint={draft.targetKind === "role" ? t("cron.form.promptRoleHint") : t("cron.form.promptHint")}
          error={fieldError("prompt")}
        >
          <textarea
            id="cron-prompt"
            className="input textarea"
            rows={4}
            value={draft.prompt}
            onChange={(e) => set({ prompt: e.target.value })}
            data-testid="cron-prompt"
          />
        </Field>
        <Field id="cron-missed" label={t("cron.form.missed")} hint={t(`cron.missed.${draft.missed}Hint`)}>
          <select
            id="cron-missed"
            className="input"
            value={draft.missed}
            onChange={(e) => set({ missed: e.target.value as JobDraft["missed"] })}
            data-testid="cron-missed"
          >
            <option value="skip">{t("cron.missed.skip")}</option>
            <option value="run_once">{t("cron.missed.run_once")}</option>
          </select>
        </Field>
        {draft.targetKind !== "role" && (
          <GrantFields
            classes={UNATTENDED}
            value={draft.unattended}
            onChange={(unattended: Risk[]) => set({ unattended })}
            hint={t("cron.form.unattendedHint")}
            testId="cron-unattended"
          />
        )}
        <p className="muted small">{t("cron.form.unattended")}</p>
        {general && <Banner tone="danger">{general}</Banner>}
        <div className="dialog-actions">
          <Button onClick={onClose}>{t("common.cancel")}</Button>
          <Button type="submit" variant="primary" busy={save.isPending} data-testid="cron-save">
            {job ? t("common.save") : t("cron.form.create")}
          </Button>
        </div>
      </form>
    </Dialog>
  );
}
