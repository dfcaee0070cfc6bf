// The words of a notice in the person's language (issue 15). Core composes
// its own notices in English and names their topic; the window words them
// from `noticeTopics.*`, the same catalog the desktop notification reads
// (src-tauri/src/notice_text.rs). An agent's own notice has no topic and is
// shown as the agent wrote it.

import type { TFunction } from "i18next";

import type { Notice } from "../../api";

export function noticeWords(t: TFunction, notice: Notice): { title: string; body: string } {
  const topic = notice.topic;
  switch (topic?.type) {
    case "urgentMail":
      return { title: t("noticeTopics.urgentMail.title", { sender: topic.sender }), body: notice.body };
    case "jobFailed":
      return { title: t("noticeTopics.jobFailed.title", { job: topic.job }), body: notice.body };
    case "approval":
      return {
        title: t("noticeTopics.approval.title", { agent: topic.agent, tool: topic.tool }),
        body: t("noticeTopics.approval.body", { risk: t(`noticeTopics.approval.risk.${topic.risk}`) }),
      };
    default:
      return { title: notice.title, body: notice.body };
  }
}
