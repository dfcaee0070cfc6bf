// What keeps a swarm from being saved or run, and its fix, as sentences in
// the interface language — with agents named, never by id.

import { useCallback, useMemo } from "react";
import { useTranslation } from "react-i18next";

import type { DraftFix, DraftProblem } from "./draft";

export interface ProblemText {
  /** One problem as a clause ("a hierarchical swarm needs an orchestrator"). */
  (problem: DraftProblem): string;
  /** Several, joined into one clause list. */
  list(problems: DraftProblem[]): string;
  fixLabel(fix: DraftFix): string;
}

export function useProblemText(names: Record<string, string>): ProblemText {
  const { t } = useTranslation();
  const nameOf = useCallback((id: string) => names[id] ?? id, [names]);
  return useMemo(() => {
    const text = (problem: DraftProblem) => {
      const agents = (problem.agentIds ?? []).map(nameOf).join(", ");
      if (problem.reason === "no_members" && problem.agentIds?.length) return t("swarms.blocked.lonelyLead", { name: agents });
      return t(`swarms.blocked.${problem.reason}`, { agents });
    };
    const fixLabel = (fix: DraftFix) => {
      switch (fix.kind) {
        case "makeOrchestrator":
          return t("swarms.fix.makeOrchestrator", { name: nameOf(fix.agentId) });
        case "keepOneOrchestrator":
          return t("swarms.fix.keepOneOrchestrator", { name: nameOf(fix.agentId) });
        case "clearOrchestrators":
          return t("swarms.fix.clearOrchestrators");
        case "removeMissing":
          return t("swarms.fix.removeMissing", { count: fix.agentIds.length });
      }
    };
    const list = (problems: DraftProblem[]) => problems.map(text).join("; ");
    return Object.assign(text, { list, fixLabel });
  }, [t, nameOf]);
}
