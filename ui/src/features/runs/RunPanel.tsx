import { useTranslation } from "react-i18next";
import { Check, CircleDashed, Crown, Square, TriangleAlert } from "lucide-react";

import type { ApiError } from "../../api";
import { useDates } from "../../app/dates";
import { errorText } from "../../app/errorText";
import { useNames } from "../../app/names";
import { toApiError } from "../../api";
import { CopyId } from "../../components/CopyId";
import { Banner } from "../../components/Banner";
import { Button } from "../../components/Button";
import { Markdown } from "../../components/Markdown";
import { Spinner } from "../../components/Spinner";
import { ResultActions } from "./ResultActions";
import { ToolEntryView } from "./ToolEntry";
import { notReported, usageText } from "./tokens";
import type { Entry, MemberProgress, RunPhase, RunView } from "./runState";
import { useWatchRunView } from "./watched";

export interface ExpectedMember {
  agentId: string;
  name: string;
  orchestrator?: boolean;
}

interface RunPanelProps {
  view: RunView;
  refusal: ApiError | null;
  /** Swarm members, shown (waiting) before they start. */
  expected?: ExpectedMember[];
  names?: Record<string, string>;
  onCancel?(): void;
  cancelling?: boolean;
}

/** A run as it streams: one lane per member, its text and tool calls live. */
export function RunPanel({ view, refusal, expected = [], names = {}, onCancel, cancelling }: RunPanelProps) {
  const { t } = useTranslation();
  const known = useNames();
  const nameOf = (id: string) => expected.find((m) => m.agentId === id)?.name ?? names[id] ?? known.agent(id);
  const lanes: { agentId: string; member: MemberProgress | undefined; orchestrator: boolean }[] = [
    ...expected.map((m) => ({
      agentId: m.agentId,
      member: view.members.find((p) => p.agentId === m.agentId),
      orchestrator: Boolean(m.orchestrator),
    })),
    ...view.members
      .filter((p) => !expected.some((m) => m.agentId === p.agentId))
      .map((p) => ({ agentId: p.agentId, member: p, orchestrator: false })),
  ];
  const error = refusal ?? (view.error ? toApiError(view.error) : null);
  const running = view.phase === "running";
  useWatchRunView(view);

  return (
    <section className="run-panel" aria-live="polite" data-testid="run-panel" data-phase={view.phase}>
      <header className="run-head">
        <PhaseBadge phase={view.phase} />
        <RunTitle view={view} nameOf={nameOf} />
        <span className="spacer" />
        {view.usage && (
          <span
            className="small muted"
            data-testid="run-usage"
            title={notReported(view.usage) ? t("runs.tokens.notReportedHint") : undefined}
          >
            {usageText(t, view.usage)}
          </span>
        )}
        {running && onCancel && (
          <Button size="sm" variant="secondary" icon={<Square size={13} />} busy={cancelling} onClick={onCancel} data-testid="cancel-run">
            {t("runs.cancel")}
          </Button>
        )}
      </header>
      {error && view.phase !== "cancelled" && (
        <Banner tone="danger" testId="run-error">
          {errorText(t, error)}
        </Banner>
      )}
      {lanes.length > 0 && (
        <div className="lanes">
          {lanes.map(({ agentId, member, orchestrator }) => (
            <MemberLane key={agentId} name={nameOf(agentId)} member={member} orchestrator={orchestrator} runEnded={!running} />
          ))}
        </div>
      )}
      {view.phase === "completed" && view.output && (
        <div className="run-output" data-testid="run-output">
          <h4>{t("runs.result")}</h4>
          <Markdown source={view.output} />
          {view.runId && (
            <ResultActions
              runId={view.runId}
              output={view.output}
              title={view.targetId ? (view.kind === "swarm" ? known.swarm(view.targetId) : nameOf(view.targetId)) : t("runs.result")}
            />
          )}
        </div>
      )}
    </section>
  );
}

/** What ran and when it started, by name; the run's id behind "Copy id". */
function RunTitle({ view, nameOf }: { view: RunView; nameOf(id: string): string }) {
  const { t } = useTranslation();
  const names = useNames();
  const dates = useDates();
  if (!view.runId) return null;
  const name = view.targetId ? (view.kind === "swarm" ? names.swarm(view.targetId) : nameOf(view.targetId)) : null;
  return (
    <span className="run-title" data-testid="run-title">
      {name && <strong>{name}</strong>}
      {view.startedAt && (
        <span className="small muted" title={dates.exact(view.startedAt)}>
          {t("names.run.started", { when: dates.when(view.startedAt) })}
        </span>
      )}
      <CopyId id={view.runId} testId="copy-run-id" />
    </span>
  );
}

export function PhaseBadge({ phase }: { phase: RunPhase }) {
  const { t } = useTranslation();
  return (
    <span className={`phase phase-${phase}`} data-testid="run-phase">
      {phase === "running" && <Spinner size={12} />}
      {t(`runs.phase.${phase}`)}
    </span>
  );
}

function MemberLane({
  name,
  member,
  orchestrator,
  runEnded,
}: {
  name: string;
  member: MemberProgress | undefined;
  orchestrator: boolean;
  runEnded: boolean;
}) {
  const { t } = useTranslation();
  const status = member?.status ?? "waiting";
  const shownStatus = status === "working" && runEnded ? "stopped" : status;
  return (
    <article className={`lane lane-${shownStatus}`} data-testid={`lane-${member?.agentId ?? name}`} data-status={shownStatus}>
      <header className="lane-head">
        <span className="lane-avatar" aria-hidden="true">
          {orchestrator ? <Crown size={14} /> : name.slice(0, 1).toUpperCase()}
        </span>
        <strong className="lane-name">{name}</strong>
        <span className="spacer" />
        <span className="lane-status">
          {shownStatus === "working" && <Spinner size={11} />}
          {shownStatus === "done" && <Check size={13} />}
          {shownStatus === "failed" && <TriangleAlert size={13} />}
          {shownStatus === "waiting" && <CircleDashed size={13} />}
          {shownStatus === "working" && member
            ? t("runs.member.step", { step: member.step })
            : t(`runs.member.${shownStatus}`)}
        </span>
      </header>
      <div className="lane-body">
        {member?.entries.map((entry, i) => (
          <EntryView key={i} entry={entry} agentName={name} live={shownStatus === "working" && i === member.entries.length - 1} />
        ))}
        {member?.error && <p className="lane-error">{member.error.message}</p>}
        {!member && <p className="muted small">{t("runs.member.notYet")}</p>}
      </div>
    </article>
  );
}

function EntryView({ entry, live, agentName }: { entry: Entry; live: boolean; agentName: string }) {
  if (entry.kind === "text") {
    return <p className={live ? "lane-text live" : "lane-text"}>{entry.text}</p>;
  }
  return <ToolEntryView entry={entry} agentName={agentName} />;
}
