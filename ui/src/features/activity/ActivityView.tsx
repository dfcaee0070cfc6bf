import { useCallback, useEffect, useState } from "react";
import { useInfiniteQuery, useQuery, useQueryClient } from "@tanstack/react-query";
import { useTranslation } from "react-i18next";
import {
  Activity as ActivityIcon,
  AlarmClock,
  Bot,
  CalendarClock,
  FileDown,
  Hand,
  LayoutPanelLeft,
  MessageSquare,
  Network,
} from "lucide-react";
import type { LucideIcon } from "lucide-react";

import { activityApi, type ActivityEntry, type ActivityKind, type ActivityPage } from "../../api";
import { useDates } from "../../app/dates";
import { useRoute } from "../../app/route";
import { Banner } from "../../components/Banner";
import { Button } from "../../components/Button";
import { EmptyState } from "../../components/EmptyState";
import { Spinner } from "../../components/Spinner";
import { exports7dQuery } from "../canvas/queries";
import { CanvasLog } from "../console/CanvasLog";
import { groupByDay } from "../console/days";
import { RunDetailDialog } from "../runs/RunDetailDialog";
import { durationText, entrySentence, startedBy, tokensText } from "./entryText";
import { activityKeys, timelineQuery, type TimelineFilter } from "./queries";

/** The filter chips: every kind but approvals, which "Needs you" shows. */
const CHIPS: readonly ActivityKind[] = ["generation", "chat", "agent", "swarm", "job", "wake_up"];

const ICONS: Record<ActivityKind, LucideIcon> = {
  generation: LayoutPanelLeft,
  chat: MessageSquare,
  agent: Bot,
  swarm: Network,
  job: CalendarClock,
  wake_up: AlarmClock,
  approval: Hand,
};

/** Activity, the home view (issue 37): one timeline of everything that ran
 * for the person — canvas generations, chats, agent and swarm runs, job
 * fires, wake-ups — with the approvals waiting on top, figures for today
 * and the week, and what ran while they were away. One core query serves
 * it (`activity_timeline`), as it serves `colmena activity` and MCP. */
export function ActivityView() {
  const { t } = useTranslation();
  const client = useQueryClient();
  const [kind, setKind] = useState<ActivityKind | null>(null);
  const [needsYou, setNeedsYou] = useState(false);
  const filter: TimelineFilter = { kinds: kind ? [kind] : [], needsYou };
  const timeline = useInfiniteQuery(timelineQuery(filter));
  const first = timeline.data?.pages[0];
  const entries = timeline.data?.pages.flatMap((p) => p.entries) ?? [];
  const [opened, setOpened] = useState<string | null>(null);
  const markSeen = useCallback(() => {
    void activityApi.markSeen().then(() => client.invalidateQueries({ queryKey: activityKeys.all }));
  }, [client]);
  // Leaving the view is having looked: "while you were away" starts again.
  useEffect(() => markSeen, [markSeen]);
  const days = groupByDay(entries, (e) => e.at);
  const choose = (next: ActivityKind | null) => {
    setNeedsYou(false);
    setKind(next);
  };
  return (
    <div className="page page-activity">
      <header className="view-head">
        <h1>{t("activity.title")}</h1>
        <p className="muted">{t("activity.subtitle")}</p>
      </header>
      {first?.sinceSeen && first.sinceSeen.figures.runs > 0 && (
        <div className="activity-away">
          <Banner tone={first.sinceSeen.figures.failures > 0 ? "warning" : "info"} testId="activity-away">
            <span>
              {t("activity.away", {
                runs: t("activity.awayRuns", { count: first.sinceSeen.figures.runs }),
                failed: t("activity.awayFailed", { count: first.sinceSeen.figures.failures }),
              })}
            </span>
            <Button size="sm" variant="secondary" onClick={markSeen} data-testid="activity-away-seen">
              {t("activity.gotIt")}
            </Button>
          </Banner>
        </div>
      )}
      {first && <Figures page={first} />}
      <div className="activity-chips" role="group" aria-label={t("activity.filter")}>
        <Chip pressed={!kind && !needsYou} onClick={() => choose(null)} testId="chip-all">
          {t("activity.chips.all")}
        </Chip>
        <Chip
          pressed={needsYou}
          onClick={() => {
            setKind(null);
            setNeedsYou(true);
          }}
          testId="chip-needs-you"
        >
          {t("activity.chips.needsYou")}
          {first && first.waiting > 0 && <span className="chip-count">{first.waiting}</span>}
        </Chip>
        {CHIPS.map((k) => (
          <Chip key={k} pressed={kind === k} onClick={() => choose(k)} testId={`chip-${k}`}>
            {t(`activity.chips.${k}`)}
          </Chip>
        ))}
      </div>
      {timeline.isPending ? (
        <Spinner />
      ) : entries.length === 0 ? (
        <EmptyState
          icon={<ActivityIcon size={28} />}
          title={needsYou ? t("activity.emptyNeedsYouTitle") : t("activity.emptyTitle")}
          body={needsYou ? t("activity.emptyNeedsYouBody") : t("activity.emptyBody")}
        />
      ) : (
        <div className="activity-feed" data-testid="activity-feed">
          {days.map((day) => (
            <Day key={day.key} first={day.first} entries={day.entries} onOpenRun={setOpened} />
          ))}
          {timeline.hasNextPage && (
            <Button variant="secondary" size="sm" onClick={() => void timeline.fetchNextPage()} disabled={timeline.isFetchingNextPage} data-testid="activity-more">
              {t("activity.more")}
            </Button>
          )}
        </div>
      )}
      <CanvasLog />
      {opened && <RunDetailDialog id={opened} names={{}} onClose={() => setOpened(null)} />}
    </div>
  );
}

function Chip({ pressed, onClick, testId, children }: { pressed: boolean; onClick(): void; testId: string; children: React.ReactNode }) {
  return (
    <button type="button" className={pressed ? "activity-chip pressed" : "activity-chip"} aria-pressed={pressed} onClick={onClick} data-testid={testId}>
      {children}
    </button>
  );
}

/** Today's runs, failures, approvals waiting and tokens; the week's; and
 * the canvases' exports in the last 7 days (SPEC C6). */
function Figures({ page }: { page: ActivityPage }) {
  const { t } = useTranslation();
  const exports = useQuery(exports7dQuery);
  const figure = (testId: string, value: number | string, label: string, tone?: string) => (
    <div className={tone ? `card kpi kpi-${tone}` : "card kpi"} data-testid={testId}>
      <span className="kpi-value" data-testid={`${testId}-value`}>
        {value}
      </span>
      <span className="muted small">{label}</span>
    </div>
  );
  return (
    <div className="kpis activity-figures">
      {figure("kpi-runs-today", page.today.runs, t("activity.figures.runsToday", { count: page.today.runs }))}
      {figure("kpi-failures-today", page.today.failures, t("activity.figures.failedToday", { count: page.today.failures }), page.today.failures > 0 ? "danger" : undefined)}
      {figure("kpi-waiting", page.waiting, t("activity.figures.waiting", { count: page.waiting }), page.waiting > 0 ? "warning" : undefined)}
      {figure("kpi-tokens-week", compact(page.week.tokens), t("activity.figures.tokensWeek", { runs: page.week.runs, count: page.week.runs }))}
      <div className="card kpi" data-testid="kpi-exports">
        <FileDown size={18} aria-hidden="true" />
        <span className="kpi-value" data-testid="kpi-exports-value">
          {exports.data ?? "–"}
        </span>
        <span className="muted small">{t("console.exports7d", { count: exports.data ?? 0 })}</span>
      </div>
    </div>
  );
}

/** 1234 → "1.2k", 2500000 → "2.5M". */
function compact(n: number): string {
  if (n < 1000) return String(n);
  if (n < 1_000_000) return `${Math.round(n / 100) / 10}k`;
  return `${Math.round(n / 100_000) / 10}M`;
}

function Day({ first, entries, onOpenRun }: { first: string; entries: ActivityEntry[]; onOpenRun(id: string): void }) {
  const dates = useDates();
  return (
    <section className="activity-day" aria-label={dates.day(first)}>
      <h3 className="console-day-title">{dates.day(first)}</h3>
      <ul className="activity-lines">
        {entries.map((e) => (
          <Entry key={e.key} entry={e} onOpenRun={onOpenRun} />
        ))}
      </ul>
    </section>
  );
}

function Entry({ entry: e, onOpenRun }: { entry: ActivityEntry; onOpenRun(id: string): void }) {
  const { t } = useTranslation();
  const dates = useDates();
  const [, navigate] = useRoute();
  const Icon = ICONS[e.kind];
  const open = () => {
    const l = e.link;
    if (e.kind === "generation" && l.canvasId) navigate("canvas", l.canvasId);
    else if (e.kind === "chat" && l.threadId) navigate("chat", encodeURIComponent(l.threadId));
    else if (e.kind === "job" && l.jobId) navigate("cron", l.jobId);
    else if (e.kind === "wake_up" && l.roleId) navigate("inbox", l.roleId);
    else if (l.runId) onOpenRun(l.runId);
  };
  const meta = [startedBy(t, e), durationText(t, e.durationMs), tokensText(t, e)].filter(Boolean).join(" · ");
  return (
    <li className={`activity-line activity-${e.status}`} data-testid="activity-entry" data-kind={e.kind} data-status={e.status}>
      <time className="console-time muted small" dateTime={e.at} title={dates.exact(e.at)}>
        {dates.time(e.at)}
      </time>
      <Icon size={16} className="activity-kind" aria-label={t(`activity.chips.${e.kind}`)} />
      <button type="button" className="activity-main" onClick={open} data-testid="activity-open">
        <span className="activity-sentence" data-testid="activity-entry-sentence">
          {entrySentence(t, e)}
        </span>
        {e.detail && <span className="activity-detail muted small">{e.detail}</span>}
        {e.preview && <span className="activity-preview small">{e.preview}</span>}
      </button>
      <span className="activity-meta small">
        <span className={`badge activity-status status-${e.status}`}>{t(`activity.status.${e.status}`)}</span>
        <span className="muted">{meta}</span>
      </span>
    </li>
  );
}
