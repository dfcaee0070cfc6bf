import { useQuery } from "@tanstack/react-query";
import { useTranslation } from "react-i18next";
import { AlertTriangle } from "lucide-react";

import { useDebounced } from "../../components/useDebounced";
import { expansionQuery, parsePatterns } from "./queries";

/** Shows, as the user types, what each tool pattern expands to — and which
 * patterns match nothing, before saving turns that into an error. */
export function PatternPreview({ text }: { text: string }) {
  const { t } = useTranslation();
  const patterns = useDebounced(parsePatterns(text), 200);
  const expansion = useQuery({ ...expansionQuery(patterns), enabled: patterns.length > 0 });

  if (patterns.length === 0) return <p className="field-hint">{t("agents.patternsHint")}</p>;
  const data = expansion.data;
  if (!data) return null;
  return (
    <div className="pattern-preview" data-testid="pattern-preview" aria-live="polite">
      {data.patterns.map((match) => (
        <div key={match.pattern} className={match.tools.length ? "pattern-row" : "pattern-row pattern-miss"}>
          <code className="pattern-name">{match.pattern}</code>
          {match.tools.length ? (
            <span className="chips" data-testid={`expansion-${match.pattern}`}>
              {match.tools.map((tool) => (
                <span key={tool} className="chip">
                  {tool}
                </span>
              ))}
            </span>
          ) : (
            <span className="pattern-miss-text" data-testid={`unmatched-${match.pattern}`}>
              <AlertTriangle size={13} aria-hidden="true" /> {t("agents.matchesNothing")}
            </span>
          )}
        </div>
      ))}
      {data.invalid.map((message) => (
        <div key={message} className="pattern-row pattern-miss">
          <span className="pattern-miss-text">
            <AlertTriangle size={13} aria-hidden="true" /> {message}
          </span>
        </div>
      ))}
      {data.tools.length > 0 && (
        <p className="field-hint">{t("agents.expandsTo", { count: data.tools.length })}</p>
      )}
    </div>
  );
}
