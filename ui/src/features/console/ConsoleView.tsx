import { useQuery } from "@tanstack/react-query";
import { useTranslation } from "react-i18next";
import { Activity as ActivityIcon, FileDown } from "lucide-react";

import { EmptyState } from "../../components/EmptyState";
import { Spinner } from "../../components/Spinner";
import { activityQuery, exports7dQuery } from "../canvas/queries";

/** The Console (SPEC C6, C8): what the canvases have been doing, newest
 * first, and how many exports were made in the last 7 days. */
export function ConsoleView() {
  const { t, i18n } = useTranslation();
  const activity = useQuery(activityQuery);
  const exports = useQuery(exports7dQuery);
  const when = (iso: string) => new Date(iso).toLocaleString(i18n.language, { dateStyle: "short", timeStyle: "medium" });
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
          <span className="muted small">{t("console.exports7d")}</span>
        </div>
      </div>
      <h2 className="section-title">{t("console.now")}</h2>
      {activity.isPending ? (
        <Spinner />
      ) : (activity.data ?? []).length === 0 ? (
        <EmptyState icon={<ActivityIcon size={28} />} title={t("console.emptyTitle")} body={t("console.emptyBody")} />
      ) : (
        <ul className="now-feed" data-testid="now-feed">
          {(activity.data ?? []).map((a) => (
            <li key={a.seq}>
              <span className="badge">{a.client}</span>
              <code>{a.tool}</code>
              <span className="now-detail">{a.detail}</span>
              <span className="muted small">{when(a.createdAt)}</span>
            </li>
          ))}
        </ul>
      )}
    </div>
  );
}
