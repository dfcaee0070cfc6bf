// The words of a notice in the person's language (issue 15). Core composes
// its own notices in English and names their topic; the window words them
// from `noticeTopics.*`, the same catalog the desktop notification reads
// (src-tauri/src/notice_text.rs). An agent's own notice keeps its words but
// is titled as a message from an agent (its text may be an outsider's).

import type { TFunction } from "i18next";

import type { Notice } from "../../api";

export function noticeWords(t: TFunction, notice: Notice): { title: string; body: string } {
  const topic = notice.topic;
  switch (topic?.type) {
    case "urgentMail":
      return { title: t("noticeTopics.urgentMail.title", { sender: topic.sender }), body: notice.body };
    case "jobFailed":
      return { title: t("noticeTopics.jobFailed.title", { job: topic.job }), body: notice.body };
    case "jobDone":
      return { title: t("noticeTopics.jobDone.title", { job: topic.job }), body: notice.body };
    case "approval":
      return {
        title: t("noticeTopics.approval.title", { agent: topic.agent, tool: topic.tool }),
        body: t("noticeTopics.approval.body", { risk: t(`noticeTopics.approval.risk.${topic.risk}`) }),
      };
    case "agentMessage":
      return {
        title: t("noticeTopics.agentMessage.title", { from: topic.from }),
        body: t("noticeTopics.agentMessage.body", { title: notice.title, body: notice.body }),
      };
    case "wakeBudget":
      return {
        title: t("noticeTopics.wakeBudget.title", { role: topic.role }),
        body: t("noticeTopics.wakeBudget.body", {
          perHour: topic.perHour,
          perDay: topic.perDay,
          until: new Date(topic.until).toLocaleTimeString([], { hour: "2-digit", minute: "2-digit" }),
        }),
      };
    default:
      return { title: notice.title, body: notice.body };
  }
}

/** Where a notice leads, when it names something to open: a job's notice
 * opens the job (its latest run, result or error, on top of its history). */
export function noticeTarget(notice: Notice): { view: "cron"; section: string; kind: "result" | "job" } | null {
  const topic = notice.topic;
  if (topic?.type === "jobDone") return { view: "cron", section: topic.jobId, kind: "result" };
  if (topic?.type === "jobFailed" && topic.jobId) return { view: "cron", section: topic.jobId, kind: "job" };
  return null;
}
