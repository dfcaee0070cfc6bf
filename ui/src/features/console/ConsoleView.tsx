import { useQuery } from "@tanstack/react-query";
import { useTranslation } from "react-i18next";
import { Activity as ActivityIcon, FileDown, Terminal } from "lucide-react";

import type { CanvasActivity as Activity } from "../../api";
import { useDates } from "../../app/dates";
import { toClient } from "../../app/names";
import { useRoute } from "../../app/route";
import { EmptyState } from "../../components/EmptyState";
import { Spinner } from "../../components/Spinner";
import { activityQuery, exports7dQuery } from "../canvas/queries";
import { groupByDay } from "./days";
import { activitySentence } from "./sentences";

/** The Console (SPEC C6, C8): what the canvases have been doing, as
 * sentences grouped by day, newest first (a line opens its canvas while
 * the canvas exists), and how many exports were made in the last 7 days. The operation's dotted name and raw detail stay in
 * each line's tooltip for whoever scripts against them. */
export function ConsoleView() {
  const { t } = useTranslation();
  const activity = useQuery(activityQuery);
  const exports = useQuery(exports7dQuery);
  const dates = useDates();
  const days = groupByDay(activity.data ?? [], (a) => a.createdAt);
  return (
    <div className="page">
      <header className="view-head">
        <h1>{t("console.title")}</h1>
        <p className="muted">{t("console.subtitle")}</p>
      </header>
      <div className="kpis">
        <div className="card kpi" data-testid="kpi-exports">
          <FileDown size={18} aria-hidden="true" />
          <span className="kpi-value" data-testid="kpi-exports-value">
            {exports.data ?? "–"}
          </span>
          <span className="muted small">{t("console.exports7d", { count: exports.data ?? 0 })}</span>
        </div>
      </div>
      <h2 className="section-title">{t("console.now")}</h2>
      {activity.isPending ? (
        <Spinner />
      ) : days.length === 0 ? (
        <EmptyState icon={<ActivityIcon size={28} />} title={t("console.emptyTitle")} body={t("console.emptyBody")} />
      ) : (
        <div className="console-feed" data-testid="now-feed">
          {days.map((day) => (
            <section key={day.key} className="console-day" aria-label={dates.day(day.first)}>
              <h3 className="console-day-title">{dates.day(day.first)}</h3>
              <ul className="console-lines">
                {day.entries.map((a) => (
                  <Line key={a.seq} activity={a} />
                ))}
              </ul>
            </section>
          ))}
        </div>
      )}
    </div>
  );
}

function Line({ activity: a }: { activity: Activity }) {
  const { t } = useTranslation();
  const dates = useDates();
  const [, navigate] = useRoute();
  const sentence = activitySentence(t, a);
  const canvasId = a.canvasId;
  return (
    <li className="console-line" data-testid="activity-line" data-tool={a.tool} title={`${a.tool} · ${a.detail}`}>
      <time className="console-time muted small" dateTime={a.createdAt} title={dates.exact(a.createdAt)}>
        {dates.time(a.createdAt)}
      </time>
      {canvasId ? (
        <button type="button" className="console-sentence console-open" onClick={() => navigate("canvas", canvasId)} data-testid="activity-sentence">
          {sentence}
        </button>
      ) : (
        <span className="console-sentence" data-testid="activity-sentence">
          {sentence}
        </span>
      )}
      {toClient(a.client) === "cli" && (
        <span className="badge console-door">
          <Terminal size={11} aria-hidden="true" /> {t("names.door.cli")}
        </span>
      )}
    </li>
  );
}
