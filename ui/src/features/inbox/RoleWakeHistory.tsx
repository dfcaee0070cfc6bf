// A role's wake-ups (issue 15): when each began and how long it took, the
// mail it was handed, what it sent, its tokens or its command's exit and
// output, and why it failed — what a role did while nobody watched. Above
// them, the summary that stands for the role's older turns once its thread
// outgrew the model's window.

import { useQuery } from "@tanstack/react-query";
import { useTranslation } from "react-i18next";
import { History } from "lucide-react";

import { inboxApi, type ApiError, type Author, type WakeRecord } from "../../api";
import { useDates } from "../../app/dates";
import { Banner } from "../../components/Banner";
import { EmptyState } from "../../components/EmptyState";
import { errorText } from "../../app/errorText";
import { Spinner } from "../../components/Spinner";
import { inboxKeys } from "./queries";

export function RoleWakeHistory({ author }: { author: Author }) {
  const { t } = useTranslation();
  const wakes = useQuery<WakeRecord[], ApiError>({ queryKey: [...inboxKeys.authors, "wakes", author.id], queryFn: () => inboxApi.listWakeHistory(author.id, undefined, 100) });
  const summary = useQuery({ queryKey: [...inboxKeys.authors, "thread-summary", author.id], queryFn: () => inboxApi.roleThreadSummary(author.id) });
  const { when, exact } = useDates();
  if (wakes.isPending) return <Spinner />;
  if (wakes.isError) return <Banner tone="danger">{errorText(t, wakes.error)}</Banner>;
  const list = wakes.data ?? [];
  return (
    <section className="wake-history" data-testid="wake-history">
      {summary.data && (
        <div className="card thread-summary" data-testid="thread-summary">
          <strong>{t("rolePage.summary.title")}</strong>
          <p className="muted small">{t("rolePage.summary.hint", { when: when(summary.data.updatedAt) })}</p>
          <p className="pre-wrap">{summary.data.summary}</p>
        </div>
      )}
      {list.length === 0 ? (
        <EmptyState icon={<History size={28} />} title={t("rolePage.wakes.emptyTitle")} body={t("rolePage.wakes.emptyBody")} />
      ) : (
        <ul className="bus-list">
          {list.map((w) => (
            <li key={w.id} className={w.error ? "card wake-entry wake-failed" : "card wake-entry"} data-testid={`wake-${w.id}`}>
              <div className="wake-head">
                <time dateTime={w.startedAt} title={exact(w.startedAt)}>
                  {when(w.startedAt)}
                </time>
                <span className="badge">{t(`rolePage.wakes.kind.${w.kind}`)}</span>
                <span className="muted small">{duration(t, w)}</span>
              </div>
              <p className="small">
                {t("rolePage.wakes.handled", { count: w.messageIds.length })} · {t("rolePage.wakes.sent", { count: w.sentIds.length })}
                {w.kind === "agent" && <> · {tokens(t, w)}</>}
                {w.kind === "command" && w.exitCode !== null && <> · {t("rolePage.wakes.exit", { code: w.exitCode })}</>}
              </p>
              {w.summary && <p className="wake-summary">{w.summary}</p>}
              {w.error && (
                <p className="wake-error" data-testid="wake-error">
                  {w.error}
                </p>
              )}
              {w.output && (
                <details>
                  <summary className="small">{t("rolePage.wakes.output")}</summary>
                  <pre className="wake-output">{w.output}</pre>
                </details>
              )}
            </li>
          ))}
        </ul>
      )}
    </section>
  );
}

function duration(t: (key: string, options?: Record<string, unknown>) => string, w: WakeRecord): string {
  if (!w.finishedAt) return t("rolePage.wakes.unfinished");
  const seconds = Math.max(0, Math.round((Date.parse(w.finishedAt) - Date.parse(w.startedAt)) / 1000));
  return t("rolePage.wakes.took", { seconds });
}

function tokens(t: (key: string, options?: Record<string, unknown>) => string, w: WakeRecord): string {
  const shown = (n: number | null) => (n === null ? "—" : String(n));
  return t("rolePage.wakes.tokens", { input: shown(w.inputTokens), output: shown(w.outputTokens) });
}
