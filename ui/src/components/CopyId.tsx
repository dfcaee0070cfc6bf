// The id behind a name, one click away (issue 12, item 4): screens show
// names; a person who needs the id — for the CLI, a bug report, an MCP
// client — copies it here. The id itself is the button's tooltip.

import { useEffect, useState } from "react";
import { useTranslation } from "react-i18next";
import { Check, Copy } from "lucide-react";

type Copied = "idle" | "copied" | "failed";

export function CopyId({ id, label, testId }: { id: string; label?: string; testId?: string }) {
  const { t } = useTranslation();
  const [state, setState] = useState<Copied>("idle");
  useEffect(() => {
    if (state === "idle") return;
    const back = window.setTimeout(() => setState("idle"), 1800);
    return () => window.clearTimeout(back);
  }, [state]);
  const copy = () => {
    const clipboard = navigator.clipboard;
    if (!clipboard) return setState("failed");
    clipboard.writeText(id).then(
      () => setState("copied"),
      () => setState("failed"),
    );
  };
  const text = state === "copied" ? t("names.copyId.copied") : state === "failed" ? t("names.copyId.failed") : (label ?? t("names.copyId.label"));
  return (
    <button
      type="button"
      className={`copy-id copy-id-${state}`}
      title={id}
      aria-label={t("names.copyId.aria", { id })}
      onClick={copy}
      data-testid={testId ?? "copy-id"}
      data-id={id}
    >
      {state === "copied" ? <Check size={12} aria-hidden="true" /> : <Copy size={12} aria-hidden="true" />}
      <span aria-live="polite">{text}</span>
    </button>
  );
}
