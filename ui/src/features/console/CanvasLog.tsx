import { useQuery } from "@tanstack/react-query";
import { useTranslation } from "react-i18next";
import { Terminal } from "lucide-react";

import type { CanvasActivity as Activity } from "../../api";
import { useDates } from "../../app/dates";
import { toClient } from "../../app/names";
import { useRoute } from "../../app/route";
import { Spinner } from "../../components/Spinner";
import { activityQuery } from "../canvas/queries";
import { groupByDay } from "./days";
import { activitySentence } from "./sentences";

/** The canvases' log (SPEC C8): what they have been doing, as sentences
 * grouped by day, newest first (a line opens its canvas while the canvas
 * exists). The operation's dotted name and raw detail stay in each line's
 * tooltip for whoever scripts against them. Shown under Activity. */
export function CanvasLog() {
  const { t } = useTranslation();
  const activity = useQuery(activityQuery);
  const dates = useDates();
  const days = groupByDay(activity.data ?? [], (a) => a.createdAt);
  return (
    <section className="canvas-log" aria-label={t("activity.canvasLog")}>
      <h2 className="section-title">{t("activity.canvasLog")}</h2>
      {activity.isPending ? (
        <Spinner />
      ) : days.length === 0 ? (
        <p className="muted small" data-testid="canvas-log-empty">
          {t("console.emptyBody")}
        </p>
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
    </section>
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
