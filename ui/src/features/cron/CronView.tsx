// The Cron view (SPEC H25, D1): every scheduled job with its next run in the
// job's time zone and in local time; a job's facts, pause / resume / run
// now, and its history — each run's status, duration, the run it produced
// and its error. It refreshes when the backend commits a change to jobs,
// whichever process (this app, `colmena serve`, the CLI) made it.

import { useState } from "react";
import { useMutation, useQuery, useQueryClient } from "@tanstack/react-query";
import { useTranslation } from "react-i18next";
import { AlarmClock, CalendarClock, Pause, Pencil, Play, Plus, Trash2, Zap } from "lucide-react";

import { cronApi, toApiError, type ApiError, type CronJob, type CronRun } from "../../api";
import { useDates } from "../../app/dates";
import { errorText } from "../../app/errorText";
import { RemedyAction } from "../../app/RemedyAction";
import { useNames } from "../../app/names";
import { useRoute } from "../../app/route";
import { Banner } from "../../components/Banner";
import { Button } from "../../components/Button";
import { ConfirmDialog } from "../../components/ConfirmDialog";
import { CopyId } from "../../components/CopyId";
import { EmptyState } from "../../components/EmptyState";
import { filterList, ListFilter } from "../../components/ListFilter";
import { ListItem } from "../../components/ListItem";
import { Spinner } from "../../components/Spinner";
import { RunDetailDialog } from "../runs/RunDetailDialog";
import { JobDialog } from "./JobDialog";
import { cronHistoryQuery, cronJobsQuery, cronKeys, schedulerQuery } from "./queries";
import { browserTimeZone, formatDuration, formatInZone, noteKind, sameClock, scheduleKey } from "./schedule";

export function CronView() {
  const { t } = useTranslation();
  const jobs = useQuery(cronJobsQuery);
  const scheduler = useQuery(schedulerQuery);
  const [selected, setSelected] = useState<string | null>(null);
  const [filter, setFilter] = useState("");
  const [dialog, setDialog] = useState<"new" | "edit" | null>(null);
  const list = jobs.data ?? [];
  // A link (Activity, a notice) names the job in the route.
  const [route] = useRoute();
  const current = list.find((j) => j.id === (selected ?? route.section)) ?? list[0];
  const shown = filterList(list, filter, (j) => [j.name, j.id, j.targetName, j.target.id]);

  return (
    <div className="page page-wide page-cron">
      <header className="view-head view-head-row">
        <div>
          <h1>{t("cron.title")}</h1>
          <p className="muted">{t("cron.subtitle")}</p>
        </div>
        <div className="head-actions">
          {scheduler.data && (
            <span className={scheduler.data.running ? "badge badge-accent" : "badge badge-warning"} data-testid="cron-scheduler">
              {scheduler.data.running ? t("cron.scheduler.running") : t("cron.scheduler.none")}
            </span>
          )}
          <Button variant="primary" icon={<Plus size={16} />} onClick={() => setDialog("new")} data-testid="new-cron-job">
            {t("cron.new")}
          </Button>
        </div>
      </header>
      {scheduler.data && !scheduler.data.running && <Banner tone="warning">{t("cron.scheduler.noneBody")}</Banner>}
      {jobs.isPending ? (
        <Spinner />
      ) : list.length === 0 ? (
        <EmptyState
          icon={<CalendarClock size={28} />}
          title={t("cron.empty.title")}
          body={t("cron.empty.body")}
          action={
            <Button variant="primary" icon={<Plus size={16} />} onClick={() => setDialog("new")} data-testid="new-cron-job-empty">
              {t("cron.new")}
            </Button>
          }
        />
      ) : (
        <div className="split">
          <aside className="list-pane">
            <ListFilter value={filter} onChange={setFilter} label={t("cron.filter")} shown={shown.length} total={list.length} testId="cron-filter" />
            <ul className="item-list" aria-label={t("cron.title")}>
              {shown.map((job) => (
                <ListItem
                  key={job.id}
                  active={job.id === current?.id}
                  off={job.paused}
                  icon={<AlarmClock size={16} />}
                  title={
                    <span className="cron-line">
                      <span>{job.name}</span>
                      {job.last?.status === "failed" && <span className="badge badge-danger">{t("cron.status.failed")}</span>}
                    </span>
                  }
                  sub={<JobSub job={job} />}
                  onSelect={() => setSelected(job.id)}
                  testId={`cron-job-${job.id}`}
                />
              ))}
            </ul>
          </aside>
          <div className="detail-pane">
            {current && (
              <>
                <JobHeader key={current.id} job={current} onEdit={() => setDialog("edit")} onDeleted={() => setSelected(null)} />
                <History key={`history-${current.id}`} job={current} />
              </>
            )}
          </div>
        </div>
      )}
      {dialog === "new" && <JobDialog onClose={() => setDialog(null)} onSaved={setSelected} />}
      {dialog === "edit" && current && <JobDialog job={current} onClose={() => setDialog(null)} />}
    </div>
  );
}

function useScheduleText() {
  const { t } = useTranslation();
  return (job: CronJob) => {
    const said = scheduleKey(job.schedule);
    return t(said.key, { count: said.count, expression: said.expression });
  };
}

function JobSub({ job }: { job: CronJob }) {
  const { t } = useTranslation();
  const dates = useDates();
  const scheduleText = useScheduleText();
  if (job.paused) return <>{t("cron.paused")}</>;
  return (
    <span data-testid={`cron-next-${job.id}`}>
      {scheduleText(job)}
      {job.nextRunAt && <> · {t("cron.nextIn", { time: dates.fromNow(job.nextRunAt) })}</>}
    </span>
  );
}

/** The next run on the job's clock and, when it reads differently, on this
 * computer's. */
function NextRun({ job }: { job: CronJob }) {
  const { t, i18n } = useTranslation();
  if (job.paused || !job.nextRunAt) return <>{job.paused ? t("cron.paused") : "—"}</>;
  const local = browserTimeZone();
  return (
    <span className="cron-next" data-testid="cron-next-run">
      <span>
        {formatInZone(job.nextRunAt, i18n.language, job.timeZone)} <span className="muted">({job.timeZone})</span>
      </span>
      {!sameClock(job.nextRunAt, job.timeZone, local) && (
        <span className="muted small" data-testid="cron-next-local">
          {t("cron.localTime", { time: formatInZone(job.nextRunAt, i18n.language, local) })}
        </span>
      )}
    </span>
  );
}

function JobHeader({ job, onEdit, onDeleted }: { job: CronJob; onEdit(): void; onDeleted(): void }) {
  const { t } = useTranslation();
  const client = useQueryClient();
  const names = useNames();
  const scheduleText = useScheduleText();
  const [confirm, setConfirm] = useState(false);
  const [asked, setAsked] = useState(false);
  const refresh = () => void client.invalidateQueries({ queryKey: cronKeys.all });
  const toggle = useMutation<CronJob, ApiError>({
    mutationFn: () => (job.paused ? cronApi.resume(job.id) : cronApi.pause(job.id)),
    onSuccess: refresh,
  });
  const trigger = useMutation({
    mutationFn: () => cronApi.trigger(job.id),
    onSuccess: () => {
      setAsked(true);
      refresh();
    },
    onError: refresh,
  });
  const remove = useMutation<null, ApiError>({
    mutationFn: () => cronApi.remove(job.id),
    onSuccess: () => {
      setConfirm(false);
      onDeleted();
      refresh();
    },
  });
  const failure = (toggle.error ?? trigger.error ?? remove.error) as ApiError | null;
  const targetName =
    job.targetName ?? (job.target.kind === "agent" ? names.agent(job.target.id) : job.target.kind === "swarm" ? names.swarm(job.target.id) : job.target.id);
  return (
    <section className="author-head" data-testid="cron-head">
      <div className="author-title">
        <h2>{job.name}</h2>
        <CopyId id={job.id} testId="copy-cron-id" />
        {job.paused && <span className="badge badge-off">{t("cron.paused")}</span>}
      </div>
      <dl className="role-facts">
        <dt>{t("cron.facts.schedule")}</dt>
        <dd data-testid="cron-schedule">
          {scheduleText(job)} <span className="muted">· {job.timeZone}</span>
        </dd>
        <dt>{t("cron.facts.runs")}</dt>
        <dd data-testid="cron-target-name">
          {t(`cron.target.${job.target.kind}`)}: {job.targetName ? targetName : <span className="field-error">{t("cron.targetMissing", { id: job.target.id })}</span>}
        </dd>
        {job.prompt && (
          <>
            <dt>{t("cron.facts.prompt")}</dt>
            <dd className="cron-prompt">{job.prompt}</dd>
          </>
        )}
        <dt>{t("cron.facts.next")}</dt>
        <dd>
          <NextRun job={job} />
        </dd>
        <dt>{t("cron.facts.missed")}</dt>
        <dd>{t(`cron.missed.${job.missed}`)}</dd>
      </dl>
      {failure && <Banner tone="danger">{errorText(t, failure)}</Banner>}
      {asked && !failure && (
        <Banner tone="success" testId="cron-triggered">
          {t("cron.triggered")}
        </Banner>
      )}
      <div className="author-actions">
        <Button size="sm" icon={<Zap size={14} />} busy={trigger.isPending} onClick={() => trigger.mutate()} data-testid="cron-trigger">
          {t("cron.runNow")}
        </Button>
        <Button
          size="sm"
          icon={job.paused ? <Play size={14} /> : <Pause size={14} />}
          busy={toggle.isPending}
          onClick={() => toggle.mutate()}
          data-testid={job.paused ? "cron-resume" : "cron-pause"}
        >
          {job.paused ? t("cron.resume") : t("cron.pause")}
        </Button>
        <Button size="sm" icon={<Pencil size={14} />} onClick={onEdit} data-testid="cron-edit">
          {t("common.edit")}
        </Button>
        <Button size="sm" variant="ghost" icon={<Trash2 size={14} />} onClick={() => setConfirm(true)} data-testid="cron-delete">
          {t("common.delete")}
        </Button>
      </div>
      {confirm && (
        <ConfirmDialog
          title={t("cron.deleteTitle", { name: job.name })}
          body={t("cron.deleteBody")}
          busy={remove.isPending}
          onConfirm={() => remove.mutate()}
          onCancel={() => setConfirm(false)}
          confirmTestId="confirm-delete-cron"
        />
      )}
    </section>
  );
}

const STATUS_TONE: Record<CronRun["status"], string> = {
  running: "badge badge-accent",
  succeeded: "badge badge-success",
  failed: "badge badge-danger",
  skipped: "badge badge-off",
};

function History({ job }: { job: CronJob }) {
  const { t } = useTranslation();
  const dates = useDates();
  const names = useNames();
  const history = useQuery(cronHistoryQuery(job.id));
  const [opened, setOpened] = useState<string | null>(null);
  const list = history.data ?? [];
  const runName = job.targetName ?? (job.target.kind === "role" ? job.target.id : names.target(job.target.kind, job.target.id));
  return (
    <section className="cron-history" aria-label={t("cron.history.title")}>
      <h3>{t("cron.history.title")}</h3>
      {history.isPending ? (
        <Spinner />
      ) : list.length === 0 ? (
        <p className="muted" data-testid="cron-history-empty">
          {t("cron.history.empty")}
        </p>
      ) : (
        <ul className="cron-runs" data-testid="cron-history">
          {list.map((entry) => (
            <li key={entry.id} className={`cron-run cron-run-${entry.status}`} data-testid={`cron-run-${entry.id}`} data-status={entry.status}>
              <div className="cron-run-meta">
                <span className={STATUS_TONE[entry.status]} data-testid="cron-run-status">
                  {t(`cron.status.${entry.status}`)}
                </span>
                <span className="muted small">{t(`cron.trigger.${entry.trigger}`)}</span>
                <time className="small" dateTime={entry.startedAt} title={dates.exact(entry.startedAt)}>
                  {dates.when(entry.startedAt)}
                </time>
                {entry.durationMs != null && entry.status !== "skipped" && <span className="muted small">{formatDuration(entry.durationMs)}</span>}
                <span className="spacer" />
                {entry.runId && (
                  <Button size="sm" variant="ghost" onClick={() => setOpened(entry.runId ?? null)} data-testid="cron-run-open">
                    {t("cron.history.openRun", { name: runName })}
                  </Button>
                )}
              </div>
              {entry.outputPreview && entry.status === "succeeded" && (
                <p className="cron-run-output small" data-testid="cron-run-output">
                  {entry.outputPreview}
                </p>
              )}
              {entry.error && (
                <div className="cron-run-error" data-testid="cron-run-error">
                  <span title={entry.error}>{entry.failure ? errorText(t, toApiError(entry.failure)) : entry.error}</span>
                  {entry.failure && <RemedyAction error={toApiError(entry.failure)} />}
                </div>
              )}
              {entry.note && (
                <p className="muted small cron-run-note" title={entry.note} data-testid="cron-run-note">
                  {t(`cron.history.notes.${noteKind(entry)}`)}
                </p>
              )}
            </li>
          ))}
        </ul>
      )}
      {opened && <RunDetailDialog id={opened} names={{}} onClose={() => setOpened(null)} />}
    </section>
  );
}
