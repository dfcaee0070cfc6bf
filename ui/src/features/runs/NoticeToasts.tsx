// Notices agents send to the person (the `notify_user` tool), shown as
// toasts in the bottom corner. An ordinary notice fades on its own after
// FADE_MS (the clock waits while the pointer or focus is on it, so nobody
// loses one they are reading); an urgent one stays until the person marks it
// read, and every toast can be closed at once. Toasts sit below dialogs and
// the approval stack (their z-index in runtime.css): a notice never covers
// what the person is answering. A notice Colmena composes is worded in the
// person's language from its topic (`noticeWords`).

import { useCallback, useEffect, useRef, useState } from "react";
import { useQuery } from "@tanstack/react-query";
import { useTranslation } from "react-i18next";
import { AlertTriangle, Bell, X } from "lucide-react";

import { onUserNotice, type Notice } from "../../api";
import { noticeTarget, noticeWords } from "./noticeWords";
import { useRoute } from "../../app/route";
import { Button, IconButton } from "../../components/Button";
import { useAgentName } from "../catalog/agentName";
import { agentsQuery } from "../catalog/queries";

interface Toast extends Notice {
  key: number;
}

/** How long an ordinary notice stays on screen. */
export const FADE_MS = 8_000;
/** The most toasts shown at once; an older one makes room for a newer. */
export const MAX_TOASTS = 4;

export function NoticeToasts() {
  const { t } = useTranslation();
  const [toasts, setToasts] = useState<Toast[]>([]);

  useEffect(() => {
    let unlisten: (() => void) | undefined;
    let cancelled = false;
    let next = 0;
    void onUserNotice((notice) => {
      const key = ++next;
      setToasts((list) => [...list.slice(-(MAX_TOASTS - 1)), { ...notice, key }]);
    })
      .then((stop) => {
        if (cancelled) stop();
        else unlisten = stop;
      })
      .catch((error: unknown) => console.warn("notices are off:", error));
    return () => {
      cancelled = true;
      unlisten?.();
    };
  }, []);

  const dismiss = useCallback((key: number) => setToasts((list) => list.filter((x) => x.key !== key)), []);

  if (toasts.length === 0) return null;
  return (
    <div className="toasts" role="status" aria-live="polite" data-testid="notices">
      {toasts.length > 1 && (
        <Button size="sm" variant="secondary" className="toasts-clear" onClick={() => setToasts([])} data-testid="notices-clear">
          {t("defects.notices.clearAll", { count: toasts.length })}
        </Button>
      )}
      {toasts.map((toast) => (
        <ToastCard key={toast.key} toast={toast} onDismiss={dismiss} />
      ))}
    </div>
  );
}

function ToastCard({ toast, onDismiss }: { toast: Toast; onDismiss(key: number): void }) {
  const { t } = useTranslation();
  const agentName = useAgentName();
  const sender = useQuery(agentsQuery).data?.find((a) => a.id === toast.from);
  const [held, setHeld] = useState(false);
  const timer = useRef<number | undefined>(undefined);

  // An ordinary notice fades unless the person is on it; each hold restarts
  // the full wait, so leaving it gives time to finish reading.
  useEffect(() => {
    if (toast.urgent || held) return;
    timer.current = window.setTimeout(() => onDismiss(toast.key), FADE_MS);
    return () => window.clearTimeout(timer.current);
  }, [toast.urgent, toast.key, held, onDismiss]);

  const [, navigate] = useRoute();
  const Icon = toast.urgent ? AlertTriangle : Bell;
  const words = noticeWords(t, toast);
  const target = noticeTarget(toast);
  return (
    <div
      className={toast.urgent ? "toast toast-urgent" : "toast"}
      data-testid="notice"
      data-urgent={toast.urgent ? "true" : undefined}
      onMouseEnter={() => setHeld(true)}
      onMouseLeave={() => setHeld(false)}
      onFocus={() => setHeld(true)}
      onBlur={() => setHeld(false)}
    >
      <Icon size={15} aria-hidden="true" />
      <div className="toast-text">
        <strong>{words.title}</strong>
        {words.body && <p>{words.body}</p>}
        {toast.from && <p className="muted small">{t("notices.from", { from: sender ? agentName(sender) : toast.from })}</p>}
        {(toast.urgent || target) && (
          <div className="toast-actions">
            {target && (
              <Button
                size="sm"
                variant="primary"
                onClick={() => {
                  onDismiss(toast.key);
                  navigate(target.view, encodeURIComponent(target.section));
                }}
                data-testid="notice-open"
              >
                {target.kind === "result" ? t("noticeTopics.openResult") : t("noticeTopics.openJob")}
              </Button>
            )}
            {toast.urgent && (
              <Button size="sm" variant="secondary" className="toast-read" onClick={() => onDismiss(toast.key)} data-testid="notice-read">
                {t("defects.notices.markRead")}
              </Button>
            )}
          </div>
        )}
      </div>
      <IconButton label={t("common.close")} onClick={() => onDismiss(toast.key)} data-testid="notice-close">
        <X size={13} />
      </IconButton>
    </div>
  );
}
